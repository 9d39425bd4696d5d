// The parts of schema/datasets.json this subject reads: seeds, counts, word lists, the PRNG check
// values and the type table. The text comes from outside (a file in Node, a fetch in a browser),
// so there is one source of truth for every language.

/** Every dataset, in the order the harness measures them. */
export const DATASET_KINDS = ["users", "numeric", "dummy"] as const;

export type DatasetKind = (typeof DATASET_KINDS)[number];

export function isDatasetKind(id: string): id is DatasetKind {
  return (DATASET_KINDS as readonly string[]).includes(id);
}

export interface FieldSpec {
  readonly name: string;
  /** `i32`, `i64`, `f64`, `bool`, `string`, a type name, or `[T; n]` / `[T; count]`. */
  readonly type: string;
  readonly rule: string;
}

export interface TypeSpec {
  readonly fields: readonly FieldSpec[];
}

export interface DatasetSpec {
  /** A type name or `[T; count]`. */
  readonly root: string;
  readonly seed: number;
  readonly count: number;
}

export interface Words {
  readonly first_names: readonly string[];
  readonly last_names: readonly string[];
  readonly email_domains: readonly string[];
  readonly user_tags: readonly string[];
  readonly companies: readonly string[];
  readonly eye_colors: readonly string[];
  readonly genders: readonly string[];
  readonly fruits: readonly string[];
  readonly street_names: readonly string[];
  readonly street_types: readonly string[];
  readonly cities: readonly string[];
  readonly states: readonly string[];
  readonly lorem: readonly string[];
}

export interface Spec {
  readonly generator: { readonly check: { readonly seed: number; readonly next_hex: readonly string[] } };
  readonly datasets: Readonly<Record<DatasetKind, DatasetSpec>>;
  readonly types: Readonly<Record<string, TypeSpec>>;
  readonly words: Words;
}

const WORD_LISTS: readonly (keyof Words)[] = [
  "first_names",
  "last_names",
  "email_domains",
  "user_tags",
  "companies",
  "eye_colors",
  "genders",
  "fruits",
  "street_names",
  "street_types",
  "cities",
  "states",
  "lorem",
];

/** Thrown when datasets.json lacks something the generator needs. */
export class SpecError extends Error {
  override name = "SpecError";
}

/**
 * Parses datasets.json and checks the parts the generator relies on, so a changed file fails
 * here with the missing key named instead of deep inside the generator.
 */
export function parseSpec(text: string): Spec {
  const spec = JSON.parse(text) as Spec;
  for (const kind of DATASET_KINDS) {
    const d = spec.datasets?.[kind];
    if (!d || !Number.isSafeInteger(d.seed) || !Number.isSafeInteger(d.count) || typeof d.root !== "string") {
      throw new SpecError(`datasets.json: datasets.${kind} needs root, seed and count`);
    }
  }
  for (const list of WORD_LISTS) {
    const words = spec.words?.[list];
    if (!Array.isArray(words) || words.length === 0 || !words.every((w) => typeof w === "string")) {
      throw new SpecError(`datasets.json: words.${list} must be a non-empty list of strings`);
    }
  }
  if (typeof spec.types !== "object" || spec.types === null) {
    throw new SpecError("datasets.json: types is missing");
  }
  return spec;
}
