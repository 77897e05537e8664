#!/usr/bin/env bash
# Assembles the GPU host check kit on a build machine (a JDK 17+, this repository, Maven's local
# repository filled by an earlier build): a jlink'ed runtime with only the modules the check needs,
# the classes of dev.keel.gpu.{check,device,collective} and the few jars they load (JCuda, DJL's api
# and PyTorch engine, their own dependencies) instead of the service jar, and the C++ source the host
# builds Keel's JNI library from. Copy the directory to the host and run gpu-check.sh there.
#
# make-kit.sh [OUT_DIR]   (default gpu-workers/target/gpu-check-kit)
#
# Prints the kit's size last; fails when it reaches 64 MiB, the most a closed GPU host takes in.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
out="${1:-$repo/gpu-workers/target/gpu-check-kit}"
limit_mib=64
java_home="${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}"
for tool in jar jdeps jlink; do
  [ -x "$java_home/bin/$tool" ] || { echo "make-kit.sh: no $tool in $java_home/bin (a JDK, not a JRE)" >&2; exit 2; }
done

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# The class path Maven resolves for gpu-workers at run time (this also compiles what changed).
# test-compile, not compile: resolving a module's class path resolves its test dependencies too, and
# keel-storage's test jar exists in the reactor only once its tests have compiled.
(cd "$repo" && ./mvnw -o -q -pl gpu-workers -am test-compile dependency:build-classpath -DskipTests \
  -Dmdep.includeScope=runtime -Dmdep.outputFile="$tmp/classpath" >"$tmp/maven.log" 2>&1) ||
  { tail -n 30 "$tmp/maven.log" >&2; echo "make-kit.sh: the Maven build failed" >&2; exit 1; }
classes="$repo/gpu-workers/target/classes"
[ -f "$classes/dev/keel/gpu/check/GpuCheck.class" ] || { echo "make-kit.sh: no GpuCheck.class in $classes" >&2; exit 1; }

rm -rf "$out"
mkdir -p "$out/lib" "$out/native" "$tmp/classes/dev/keel/gpu"
for package in check device collective; do
  cp -r "$classes/dev/keel/gpu/$package" "$tmp/classes/dev/keel/gpu/"
done
"$java_home/bin/jar" --create --file "$out/lib/keel-gpu-check.jar" -C "$tmp/classes" .

# Only what the three checks load (not commons-compress, which DJL needs only to unpack downloads,
# and whose module would pull in more). JCuda's natives jar is 9 MB because of its PTX compiler; the
# check needs only the driver API's library.
tr ':' '\n' <"$tmp/classpath" | while read -r jar; do
  case "$(basename "$jar")" in
    jcuda-natives-*-linux-x86_64.jar)
      python3 - "$jar" "$out/lib/$(basename "$jar")" <<'PY'
import fnmatch, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as src, zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_DEFLATED) as dst:
    for info in src.infolist():
        if fnmatch.fnmatchcase(info.filename, "lib/libJCudaDriver-*") or info.filename.startswith("META-INF/"):
            dst.writestr(info, src.read(info), zipfile.ZIP_DEFLATED)
PY
      ;;
    jcuda-[0-9]*.jar | api-[0-9]*.jar | pytorch-engine-*.jar | pytorch-jni-*.jar | gson-[0-9]*.jar | \
      jna-[0-9]*.jar | slf4j-api-*.jar)
      cp "$jar" "$out/lib/"
      ;;
  esac
done
for needed in keel-gpu-check jcuda-1 jcuda-natives api-0 pytorch-engine slf4j-api; do
  ls "$out/lib/$needed"*.jar >/dev/null 2>&1 || { echo "make-kit.sh: no $needed jar on gpu-workers' class path" >&2; exit 1; }
done

modules="$("$java_home/bin/jdeps" --print-module-deps --ignore-missing-deps --multi-release 17 \
  "$out"/lib/*.jar 2>"$tmp/jdeps.log" | tail -n 1)"
[[ "$modules" =~ ^java\.base ]] || { cat "$tmp/jdeps.log" >&2; echo "make-kit.sh: jdeps found no modules" >&2; exit 1; }
# jdk.unsupported: JNA and Gson reach sun.misc.Unsafe reflectively, which jdeps cannot see
modules="$modules,jdk.unsupported"
"$java_home/bin/jlink" --add-modules "$modules" --strip-debug --no-header-files --no-man-pages \
  --compress=2 --output "$out/runtime"
# build-native.sh compiles against jni.h, which --no-header-files left out: two files, 10 kB
mkdir -p "$out/runtime/include/linux"
cp "$java_home/include/jni.h" "$out/runtime/include/"
cp "$java_home/include/linux/jni_md.h" "$out/runtime/include/linux/"

cp "$repo/gpu-workers/native/keel_c10d.cpp" "$out/native/"
cp "$here/gpu-check.sh" "$here/build-native.sh" "$out/"
chmod +x "$out/gpu-check.sh" "$out/build-native.sh"

bytes="$(du -sb "$out" | cut -f1)"
mib="$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }')"
echo "kit: $out, $mib MiB ($bytes bytes; runtime $(du -sh "$out/runtime" | cut -f1), jars $(du -sh "$out/lib" | cut -f1)), modules $modules"
if [ "$bytes" -ge $((limit_mib << 20)) ]; then
  echo "make-kit.sh: the kit is over $limit_mib MiB" >&2
  exit 1
fi
