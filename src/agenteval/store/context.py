"""Where a run ran: git commit, branch and dirty flag, and the CI job's URL.

Git is asked in the working directory (``git rev-parse``, ``git symbolic-ref``,
``git status --porcelain --untracked-files=no``: files the run itself writes do not
make a checkout dirty).  In CI the checkout is often a detached HEAD; the branch then
comes from the CI's variables (a pull request's source branch first), and so does the
commit when git is not there.  Outside a repository and outside CI every field is None.

CI job URLs: GitHub Actions (``$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/
$GITHUB_RUN_ID``), GitLab (``$CI_JOB_URL``), Buildkite, CircleCI, Jenkins, Azure
Pipelines, Travis.  User info in a URL is dropped (it could hold a token).

Tested in tests/store/test_context.py.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

GIT_TIMEOUT_SECONDS = 10.0

# Branch variables in the order they are trusted (a PR's source branch before the ref).
_BRANCH_VARIABLES = (
    "GITHUB_HEAD_REF",
    "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME",
    "CI_COMMIT_BRANCH",
    "BUILDKITE_BRANCH",
    "CIRCLE_BRANCH",
    "BRANCH_NAME",
    "BUILD_SOURCEBRANCHNAME",
    "TRAVIS_PULL_REQUEST_BRANCH",
    "TRAVIS_BRANCH",
    "GIT_BRANCH",
)
_COMMIT_VARIABLES = (
    "GITHUB_SHA",
    "CI_COMMIT_SHA",
    "BUILDKITE_COMMIT",
    "CIRCLE_SHA1",
    "GIT_COMMIT",
    "BUILD_SOURCEVERSION",
    "TRAVIS_COMMIT",
)


@dataclass(frozen=True, slots=True)
class RunContext:
    """The commit, branch, dirty flag and CI job URL of a run (None when unknown)."""

    commit: str | None = None
    branch: str | None = None
    dirty: bool | None = None
    ci_url: str | None = None


def _git(args: list[str], cwd: Path) -> str | None:
    try:
        proc = subprocess.run(
            ["git", *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_SECONDS,
            check=False,
            # A read-only look: no index refresh, no lock files left behind.
            env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"},
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


def _first(environ: Mapping[str, str], names: tuple[str, ...]) -> str | None:
    for name in names:
        value = environ.get(name, "").strip()
        if value:
            return value
    return None


def _branch_from_ci(environ: Mapping[str, str]) -> str | None:
    branch = _first(environ, _BRANCH_VARIABLES)
    if branch is None and environ.get("GITHUB_REF_TYPE") == "branch":
        branch = environ.get("GITHUB_REF_NAME") or None
    if branch is not None:
        # Jenkins' GIT_BRANCH and Azure's full refs name the remote or the ref path.
        for prefix in ("refs/heads/", "origin/"):
            branch = branch.removeprefix(prefix)
    return branch


def _without_user_info(url: str) -> str:
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))


def ci_job_url(environ: Mapping[str, str]) -> str | None:
    """The URL of the CI job this process runs in, when the CI names one."""
    url: str | None = None
    if environ.get("GITHUB_RUN_ID") and environ.get("GITHUB_REPOSITORY"):
        server = environ.get("GITHUB_SERVER_URL") or "https://github.com"
        url = f"{server}/{environ['GITHUB_REPOSITORY']}/actions/runs/{environ['GITHUB_RUN_ID']}"
        attempt = environ.get("GITHUB_RUN_ATTEMPT")
        if attempt and attempt != "1":
            url += f"/attempts/{attempt}"
    elif environ.get("SYSTEM_COLLECTIONURI") and environ.get("BUILD_BUILDID"):
        base = environ["SYSTEM_COLLECTIONURI"].rstrip("/")
        project = environ.get("SYSTEM_TEAMPROJECT", "")
        url = f"{base}/{project}/_build/results?buildId={environ['BUILD_BUILDID']}"
    else:
        url = _first(
            environ,
            (
                "CI_JOB_URL",
                "BUILDKITE_BUILD_URL",
                "CIRCLE_BUILD_URL",
                "BUILD_URL",
                "TRAVIS_JOB_WEB_URL",
            ),
        )
    return _without_user_info(url) if url else None


def run_context(cwd: Path | None = None, environ: Mapping[str, str] | None = None) -> RunContext:
    """The context of a run started in ``cwd`` (default: the working directory)."""
    env = os.environ if environ is None else environ
    where = cwd or Path.cwd()
    commit = _git(["rev-parse", "--verify", "-q", "HEAD"], where)
    branch: str | None = None
    dirty: bool | None = None
    if commit:
        branch = _git(["symbolic-ref", "--short", "-q", "HEAD"], where) or None
        status = _git(["status", "--porcelain", "--untracked-files=no"], where)
        dirty = bool(status) if status is not None else None
    if branch is None:
        branch = _branch_from_ci(env)
    if not commit:
        commit = _first(env, _COMMIT_VARIABLES)
    return RunContext(commit=commit or None, branch=branch, dirty=dirty, ci_url=ci_job_url(env))


__all__ = ["RunContext", "ci_job_url", "run_context"]
