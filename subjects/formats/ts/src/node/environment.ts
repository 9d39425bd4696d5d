// Node only: reads what the portable modules are built from — schema/datasets.json, the .proto
// and .avsc files next to this subject, and the installed versions of the libraries — from disk.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import type { CodecEnvironment } from "../codecs/codec.js";
import { compileShapes } from "../dataset/shape.js";
import { parseSpec } from "../dataset/spec.js";

/** subjects/formats/ts/ (this file is compiled to dist/node/). */
export const PACKAGE_DIR = fileURLToPath(new URL("../../", import.meta.url));
/** subjects/formats/schema/: the datasets and wire schemas every language shares. */
export const SCHEMA_DIR = fileURLToPath(new URL("../../../schema/", import.meta.url));
/** schemas/measurement.schema.json of the repository: the shape of every output line. */
export const MEASUREMENT_SCHEMA_PATH = fileURLToPath(new URL("../../../../../schemas/measurement.schema.json", import.meta.url));
/** subjects/formats/vectors/: the golden vectors and the bad-input corpus. */
export const VECTORS_DIR = fileURLToPath(new URL("../../../vectors/", import.meta.url));

function read(path: string): string {
  return readFileSync(path, "utf8");
}

/** The version npm installed, from the package's own package.json (what actually runs). */
export function installedVersion(packageName: string): string {
  const manifest = JSON.parse(read(`${PACKAGE_DIR}node_modules/${packageName}/package.json`)) as { version?: unknown };
  if (typeof manifest.version !== "string") throw new Error(`${packageName}: package.json has no version`);
  return manifest.version;
}

/** Reads the schema files and returns the environment every codec is built from. */
export function loadEnvironment(): CodecEnvironment {
  const spec = parseSpec(read(`${SCHEMA_DIR}datasets.json`));
  return {
    spec,
    shapes: compileShapes(spec),
    proto: read(`${SCHEMA_DIR}datasets.proto`),
    avro: {
      users: read(`${SCHEMA_DIR}avro/users.avsc`),
      numeric: read(`${SCHEMA_DIR}avro/numeric.avsc`),
      dummy: read(`${SCHEMA_DIR}avro/dummy.avsc`),
    },
    library: (packageName) =>
      packageName === null ? `node@${process.versions.node}` : `${packageName}@${installedVersion(packageName)}`,
  };
}
