#!/bin/sh
# Builds target/restcache-jetty.jar and target/restcache-tomcat.jar (the suite's build step; run
# from anywhere). The tests: mvn -q -B test (here).
set -eu
cd "$(dirname "$0")"
mvn -q -B package -DskipTests
