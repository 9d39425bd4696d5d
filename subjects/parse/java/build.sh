#!/bin/sh
# Builds target/parse-java.jar (the suite's build step; run from anywhere). The server depends on
# the formats lab's formats-java (pom.xml), so that is installed into the local Maven repository
# first. The tests: mvn -q -B test (here), after the same install.
set -eu
cd "$(dirname "$0")"
mvn -q -B -f ../../formats/java/pom.xml install -DskipTests
mvn -q -B package -DskipTests
