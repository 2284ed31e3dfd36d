#!/usr/bin/env bash
# The ingest step of the publish workflow, runnable on any clone: fetch what is new (feeds, FX
# rates, price catalogues) into sources/snapshots/, then commit that folder, and nothing else, under the bot's name
# and push it. A dead or broken feed is not a failure here: `brief ingest` records it in the
# snapshots and exits 0 (see issue 7); only a crash or a missing command stops the run.
#
# Environment (all optional):
#   BRIEF          how to run brief                 [brief]
#   PUBLISH_REMOTE where to push                    [origin]
#   PUBLISH_BRANCH the branch to push to            [main]
#   BOT_NAME / BOT_EMAIL  the commit's identity     [github-actions[bot]]
#   INGEST_STEPS   which `brief ingest` commands to run   [feeds fx prices]
#   NO_PUSH=1      commit but do not push (to look at the commit first)
#   GITHUB_OUTPUT  set by Actions: receives `sha=<commit to build>` and `changed=true|false`
set -euo pipefail

BRIEF=${BRIEF:-brief}
REMOTE=${PUBLISH_REMOTE:-origin}
BRANCH=${PUBLISH_BRANCH:-main}
BOT_NAME=${BOT_NAME:-github-actions[bot]}
BOT_EMAIL=${BOT_EMAIL:-41898282+github-actions[bot]@users.noreply.github.com}
STEPS=${INGEST_STEPS:-feeds fx prices}
SNAPSHOTS=sources/snapshots

say() { printf 'publish-ingest: %s\n' "$*" >&2; }

cd "$(git rev-parse --show-toplevel)"

# Each ingest command comes from its own lane; fail clearly, before fetching anything, when
# this version of brief lacks one, instead of half-ingesting.
for step in $STEPS; do
  # shellcheck disable=SC2086  # BRIEF may be a command with arguments
  if ! $BRIEF ingest "$step" --help >/dev/null 2>&1; then
    say "\`brief ingest $step\` is not available in this version of brief; cannot ingest"
    exit 3
  fi
done

for step in $STEPS; do
  case $step in
    # Spelled out, so tests/test_workflows.py can check each command exists in the CLI.
    # shellcheck disable=SC2086
    feeds) $BRIEF ingest feeds ;;
    # shellcheck disable=SC2086
    fx) $BRIEF ingest fx ;;
    # shellcheck disable=SC2086
    prices) $BRIEF ingest prices ;;
    *) say "unknown ingest step '$step' (known: feeds fx prices)"; exit 2 ;;
  esac
done

# What each dated edition prints, sealed before the build: a figure a source changed since then
# is shown on its edition as a dated correction (pipeline/compose/corrections.py). Sources that
# do not load are the build's to report; the snapshots just fetched are committed all the same.
# shellcheck disable=SC2086
$BRIEF seal || say "\`brief seal\` failed; the editions are sealed on the next run"

output() { if [ -n "${GITHUB_OUTPUT:-}" ]; then printf '%s\n' "$1" >>"$GITHUB_OUTPUT"; fi; }

mkdir -p "$SNAPSHOTS"
git add -A -- "$SNAPSHOTS"
if git diff --cached --quiet -- "$SNAPSHOTS"; then
  say "no change in $SNAPSHOTS; nothing to commit"
  output "changed=false"
  output "sha=$(git rev-parse HEAD)"
  exit 0
fi

# Only the snapshots go in, whatever else the ingest touched: `-- $SNAPSHOTS` limits the commit.
git -c user.name="$BOT_NAME" -c user.email="$BOT_EMAIL" \
  commit --quiet --no-verify -m "Snapshots: ingest of $(date -u +%Y-%m-%d)" -- "$SNAPSHOTS"
say "committed $(git rev-parse --short HEAD): $(git diff --name-only HEAD~1 HEAD | wc -l) file(s) under $SNAPSHOTS"

if [ "${NO_PUSH:-}" != "1" ]; then
  # An editor may have merged while we fetched: replay our commit on top once and retry.
  if ! git push --quiet "$REMOTE" "HEAD:refs/heads/$BRANCH"; then
    say "push refused; rebasing on $REMOTE/$BRANCH and trying once more"
    git -c user.name="$BOT_NAME" -c user.email="$BOT_EMAIL" pull --quiet --rebase --autostash "$REMOTE" "$BRANCH"
    git push --quiet "$REMOTE" "HEAD:refs/heads/$BRANCH"
  fi
fi
output "changed=true"
output "sha=$(git rev-parse HEAD)"
