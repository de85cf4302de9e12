"""Result documents kept byte for byte: zstd in chunks, read back whole or refused as damaged."""

from __future__ import annotations

import os

import pytest
from sqlalchemy import insert, update

from agenteval.store import documents, tables
from agenteval.store.connection import Store
from agenteval.store.documents import (
    BytesDocument,
    DamagedDocument,
    has_document,
    read_document,
    write_document,
)


def _run_row(store: Store) -> int:
    with store.transaction() as conn:
        key = conn.execute(
            insert(tables.runs).values(
                run_id="r1",
                state="running",
                started_at=0.0,
                agenteval_version="t",
                app_name="a",
                num_runs=1,
                origin="run",
            )
        ).inserted_primary_key
    assert key is not None
    return int(key[0])


def test_a_document_of_several_chunks_reads_back_byte_for_byte(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(documents, "CHUNK_BYTES", 4096)
    # Incompressible bytes so the compressed frame spans many chunks.
    data = os.urandom(300_000) + b'{"a": 1}\n' * 1000
    run = _run_row(store)
    with store.transaction() as conn:
        size, chunks = write_document(conn, run, 0, BytesDocument(data))
    assert size == len(data)
    assert chunks > 50
    with store.transaction() as conn:
        assert has_document(conn, run, 0)
        assert not has_document(conn, run, 1)
        assert b"".join(read_document(conn, run, 0, size)) == data


def test_an_empty_document_and_a_wrong_size(store: Store) -> None:
    run = _run_row(store)
    with store.transaction() as conn:
        assert write_document(conn, run, 0, BytesDocument(b"")) == (0, 1)
        assert b"".join(read_document(conn, run, 0, 0)) == b""
        write_document(conn, run, 1, BytesDocument(b"abc"))
    with store.transaction() as conn, pytest.raises(DamagedDocument, match="holds 3 bytes, 4"):
        b"".join(read_document(conn, run, 1, 4))


def test_a_damaged_or_cut_document_is_refused(store: Store) -> None:
    run = _run_row(store)
    data = b"x" * 100_000
    with store.transaction() as conn:
        write_document(conn, run, 0, BytesDocument(data))
        stored = conn.execute(tables.document_chunks.select()).first()
    assert stored is not None
    blob = bytes(stored.data)
    with store.transaction() as conn:
        conn.execute(update(tables.document_chunks).values(data=blob[: len(blob) // 2]))
    with store.transaction() as conn, pytest.raises(DamagedDocument, match="cut short"):
        b"".join(read_document(conn, run, 0))
    flipped = blob[:-6] + bytes([blob[-6] ^ 0xFF]) + blob[-5:]
    with store.transaction() as conn:
        conn.execute(update(tables.document_chunks).values(data=flipped))
    with store.transaction() as conn, pytest.raises(DamagedDocument, match="does not decompress"):
        b"".join(read_document(conn, run, 0))
    with store.transaction() as conn, pytest.raises(DamagedDocument, match="cut short"):
        b"".join(read_document(conn, run, 7))
