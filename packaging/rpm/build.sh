#!/usr/bin/env bash
# Builds the appliance RPM (x86_64) into packaging/rpm/target/ from an already built appliance jar and installer jar:
#   packaging/rpm/build.sh JAR [INSTALLER_JAR]   (JAVA_HOME: the JDK 25 whose jlink makes the bundled runtime)
# INSTALLER_JAR defaults to appliance-installer/target/appliance-installer.jar. `./appliance rpm` builds both jars
# when needed and calls this. Needs rpmbuild (Debian/Ubuntu: apt-get install rpm).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
JAR="${1:?usage: build.sh APPLIANCE_JAR [INSTALLER_JAR]}"
INSTALLER_JAR="${2:-$ROOT/appliance-installer/target/appliance-installer.jar}"
: "${JAVA_HOME:?JAVA_HOME must name the JDK whose jlink builds the bundled runtime}"
TARGET="$HERE/target"
STAGE="$TARGET/stage"

# What the appliance reaches at run time (jdeps over the jar's classes and libraries, plus what is reached only by
# reflection or by name): java.desktop for java.beans (Spring), jdk.unsupported for Netty's Unsafe, jdk.management
# for Micrometer's process metrics, jdk.incubator.vector for the codec, jdk.crypto.ec and jdk.charsets for TLS and
# clients' charsets, jdk.jcmd so an operator can take a thread dump of the service with the bundled runtime.
MODULES="java.base,java.compiler,java.desktop,java.instrument,java.logging,java.management,java.naming,java.net.http"
MODULES+=",java.prefs,java.scripting,java.security.jgss,java.sql,java.xml,jdk.charsets,jdk.crypto.ec,jdk.incubator.vector"
MODULES+=",jdk.jcmd,jdk.management,jdk.net,jdk.unsupported,jdk.zipfs"

command -v rpmbuild >/dev/null 2>&1 || {
  echo "appliance rpm: rpmbuild not found (Debian/Ubuntu: apt-get install rpm; RHEL family: dnf install rpm-build)" >&2
  exit 1
}
[ -f "$JAR" ] || { echo "appliance rpm: no jar at $JAR" >&2; exit 1; }
[ -f "$INSTALLER_JAR" ] || { echo "appliance rpm: no installer jar at $INSTALLER_JAR" >&2; exit 1; }

# 0.1.0-SNAPSHOT becomes version 0.1.0, release 0.snapshot (RPM versions hold no '-'); APPLIANCE_RPM_RELEASE overrides.
POM_VERSION="$(sed -n '0,/<version>/s:.*<version>\(.*\)</version>.*:\1:p' "$ROOT/pom.xml")"
VERSION="${POM_VERSION%%-*}"
if [ "$VERSION" != "$POM_VERSION" ]; then DEFAULT_RELEASE="0.snapshot"; else DEFAULT_RELEASE="1"; fi
RELEASE="${APPLIANCE_RPM_RELEASE:-$DEFAULT_RELEASE}"

rm -rf "$STAGE" "$TARGET/rpmbuild"
mkdir -p "$STAGE/usr/lib/appliance" "$STAGE/usr/bin" "$STAGE/usr/lib/systemd/system" "$STAGE/etc/sysconfig" \
  "$STAGE/etc/appliance" "$STAGE/usr/lib/firewalld/services" "$STAGE/usr/lib/tuned/appliance" \
  "$STAGE/usr/share/doc/appliance" "$STAGE/var/lib/appliance" "$STAGE/var/log/appliance"

echo "appliance rpm: linking the Java runtime ($JAVA_HOME)..." >&2
"$JAVA_HOME/bin/jlink" --add-modules "$MODULES" --strip-debug --no-man-pages --no-header-files \
  --compress=zip-6 --output "$STAGE/usr/lib/appliance/runtime"

install -m 0644 "$JAR" "$STAGE/usr/lib/appliance/appliance.jar"
install -m 0644 "$HERE/files/jvm-options.sh" "$STAGE/usr/lib/appliance/jvm-options.sh"
sed "s/@VERSION@/$VERSION-$RELEASE/" "$HERE/files/appliance" > "$STAGE/usr/bin/appliance"
chmod 0755 "$STAGE/usr/bin/appliance"
# The installer CLI (jdeps: java.base, java.desktop, java.sql, jdk.unsupported: all in the runtime above)
install -m 0644 "$INSTALLER_JAR" "$STAGE/usr/lib/appliance/appliance-installer.jar"
sed "s/@VERSION@/$VERSION-$RELEASE/" "$HERE/files/appliance-installer" > "$STAGE/usr/bin/appliance-installer"
chmod 0755 "$STAGE/usr/bin/appliance-installer"
install -m 0644 "$HERE/files/appliance.service" "$STAGE/usr/lib/systemd/system/appliance.service"
install -m 0644 "$HERE/files/appliance.sysconfig" "$STAGE/etc/sysconfig/appliance"
install -m 0644 "$HERE/files/firewalld-appliance.xml" "$STAGE/usr/lib/firewalld/services/appliance.xml"
install -m 0644 "$HERE/files/tuned.conf" "$STAGE/usr/lib/tuned/appliance/tuned.conf"
install -m 0644 "$ROOT/docs/install.md" "$HERE/README.md" "$STAGE/usr/share/doc/appliance/"

echo "appliance rpm: rpmbuild $VERSION-$RELEASE..." >&2
rpmbuild -bb --target x86_64 \
  --define "_topdir $TARGET/rpmbuild" \
  --define "appliance_stage $STAGE" \
  --define "appliance_version $VERSION" \
  --define "appliance_release $RELEASE" \
  "$HERE/appliance.spec" >"$TARGET/rpmbuild.log" 2>&1 || {
    cat "$TARGET/rpmbuild.log" >&2
    exit 1
  }
RPM="$(find "$TARGET/rpmbuild/RPMS" -name '*.rpm' | head -n1)"
cp "$RPM" "$TARGET/"
echo "$TARGET/$(basename "$RPM")"
