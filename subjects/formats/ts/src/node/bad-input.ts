// Node only: the bad-input corpus (vectors/bad/) as decode cases, every file through every
// decoder as every dataset. The test and its decoding child build the same list from here, so a
// case is named by its index alone.

import { DATASET_KINDS, type DatasetKind } from "../dataset/spec.js";
import { FORMAT_IDS } from "../codecs/index.js";
import { badFiles } from "./vectors.js";

/** One decode: a file of vectors/bad/ through one codec as one dataset. */
export interface DecodeCase {
  readonly file: string;
  readonly format: string;
  readonly kind: DatasetKind;
}

export function badInputCases(): DecodeCase[] {
  const cases: DecodeCase[] = [];
  for (const file of badFiles()) {
    for (const format of FORMAT_IDS) {
      for (const kind of DATASET_KINDS) {
        cases.push({ file, format, kind });
      }
    }
  }
  return cases;
}

export function describeCase(c: DecodeCase): string {
  return `bad/${c.file} → ${c.format} as ${c.kind}`;
}
