"""Git commit / branch / dirty flag and the CI job URL, from a real repository and CI variables."""

from __future__ import annotations

import subprocess
from pathlib import Path

from agenteval.store.context import RunContext, ci_job_url, run_context


def git(cwd: Path, *args: str) -> str:
    """Run git in ``cwd`` (a throwaway identity, no signing, no user config)."""
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_CONFIG_SYSTEM": "/dev/null",
        "PATH": "/usr/bin:/bin",
    }
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    ).stdout.strip()


def test_commit_branch_and_dirty_from_git(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "a.txt").write_text("1")
    git(tmp_path, "add", "a.txt")
    git(tmp_path, "commit", "-q", "-m", "one")
    head = git(tmp_path, "rev-parse", "HEAD")
    assert run_context(tmp_path, {}) == RunContext(commit=head, branch="main", dirty=False)
    # An untracked file (a run's own output) does not make the checkout dirty; a change does.
    (tmp_path / "out.json").write_text("{}")
    assert run_context(tmp_path, {}).dirty is False
    (tmp_path / "a.txt").write_text("2")
    assert run_context(tmp_path, {}).dirty is True


def test_detached_head_takes_the_branch_from_ci(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "a.txt").write_text("1")
    git(tmp_path, "add", "a.txt")
    git(tmp_path, "commit", "-q", "-m", "one")
    git(tmp_path, "checkout", "-q", "--detach")
    env = {"GITHUB_HEAD_REF": "feature/x", "GITHUB_REF_NAME": "12/merge"}
    assert run_context(tmp_path, env).branch == "feature/x"
    assert (
        run_context(tmp_path, {"GITHUB_REF_TYPE": "branch", "GITHUB_REF_NAME": "main"}).branch
        == "main"
    )
    assert run_context(tmp_path, {"GIT_BRANCH": "origin/release"}).branch == "release"
    assert run_context(tmp_path, {}).branch is None


def test_outside_a_repository(tmp_path: Path) -> None:
    assert run_context(tmp_path, {}) == RunContext()
    context = run_context(tmp_path, {"CI_COMMIT_SHA": "abc", "CI_COMMIT_BRANCH": "main"})
    assert (context.commit, context.branch, context.dirty) == ("abc", "main", None)


def test_ci_job_urls() -> None:
    github = {
        "GITHUB_SERVER_URL": "https://github.example",
        "GITHUB_REPOSITORY": "team/agent",
        "GITHUB_RUN_ID": "42",
        "GITHUB_RUN_ATTEMPT": "2",
    }
    assert ci_job_url(github) == "https://github.example/team/agent/actions/runs/42/attempts/2"
    assert ci_job_url({"CI_JOB_URL": "https://gitlab.example/g/p/-/jobs/7"}) == (
        "https://gitlab.example/g/p/-/jobs/7"
    )
    assert ci_job_url({"BUILD_URL": "https://user:token@jenkins.example/job/9/"}) == (
        "https://jenkins.example/job/9/"
    )
    azure = {
        "SYSTEM_COLLECTIONURI": "https://dev.azure.com/org/",
        "SYSTEM_TEAMPROJECT": "proj",
        "BUILD_BUILDID": "5",
    }
    assert ci_job_url(azure) == "https://dev.azure.com/org/proj/_build/results?buildId=5"
    assert ci_job_url({}) is None
