// The seeded generator: each dataset of schema/datasets.json, rule by rule in the spec's draw
// order, so the values equal the Rust reference's (vectors/<dataset>.json) exactly.

import { SplitMix64 } from "./splitmix64.js";
import type { DatasetKind, Spec, Words } from "./spec.js";
import type { Coordinate, Dataset, DummyFriend, DummyObject, NumericObject, User } from "./types.js";

/**
 * Generates the first `count` objects of a dataset (default: the spec's count). A prefix is the
 * same objects the full dataset starts with; `users` gets `total_count = count`.
 */
export function generate(spec: Spec, kind: DatasetKind, count: number = spec.datasets[kind].count): Dataset {
  const g = new Generator(new SplitMix64(spec.datasets[kind].seed), spec.words);
  const indexes = Array.from({ length: count }, (_, i) => i);
  switch (kind) {
    case "users": {
      const users = indexes.map((i) => g.user(i));
      // Metadata draws nothing; it comes after the users as the spec orders it.
      const metadata = { version: "1.0", created_at: "2025-01-01T00:00:00Z", total_count: count };
      return { kind, root: { users, metadata } };
    }
    case "numeric":
      return { kind, root: indexes.map((i) => g.numeric(i)) };
    case "dummy":
      return { kind, root: indexes.map((i) => g.dummy(i)) };
  }
}

class Generator {
  constructor(
    private readonly r: SplitMix64,
    private readonly w: Words,
  ) {}

  user(i: number): User {
    const { r, w } = this;
    const first = r.pick(w.first_names);
    const last = r.pick(w.last_names);
    const id = i + 1;
    // Property initialisers run in the order written, which is the spec's draw order.
    return {
      id,
      name: `${first} ${last}`,
      email: `${lower(first)}.${lower(last)}${id}@${r.pick(w.email_domains)}`,
      age: r.int(18, 80),
      is_active: r.bool(),
      tags: [r.pick(w.user_tags), r.pick(w.user_tags), r.pick(w.user_tags)],
    };
  }

  numeric(i: number): NumericObject {
    const r = this.r;
    return {
      id: r.objectId(),
      index: i,
      numbr: r.fixed(-1_000_000_000, 1_000_000_000, 1000),
      coordinates: Array.from(
        { length: 10 },
        (): Coordinate => ({
          timestamp: 1_700_000_000_000 + r.int(0, 31_535_999_999),
          latitude: r.fixed(-90_000_000, 90_000_000, 1_000_000),
          longitude: r.fixed(-180_000_000, 180_000_000, 1_000_000),
        }),
      ),
    };
  }

  dummy(i: number): DummyObject {
    const { r, w } = this;
    const first = r.pick(w.first_names);
    const last = r.pick(w.last_names);
    const company = r.pick(w.companies);
    return {
      _id: r.objectId(),
      index: i,
      guid: r.guid(),
      isActive: r.bool(),
      balance: dollars(r.int(100_000, 399_999)),
      picture: "http://placehold.it/32x32",
      age: r.int(20, 40),
      eyeColor: r.pick(w.eye_colors),
      name: `${first} ${last}`,
      gender: r.pick(w.genders),
      company,
      email: `${lower(first)}.${lower(last)}@${lower(company)}.com`,
      phone: phone(r),
      address: address(r, w),
      about: paragraph(r, w.lorem, 500),
      registered: registered(r),
      latitude: r.fixed(-90_000_000, 90_000_000, 1_000_000),
      longitude: r.fixed(-180_000_000, 180_000_000, 1_000_000),
      tags: Array.from({ length: 7 }, () => r.pick(w.lorem)),
      friends: Array.from({ length: 3 }, (_, k): DummyFriend => {
        const friendFirst = r.pick(w.first_names);
        return { id: k, name: `${friendFirst} ${r.pick(w.last_names)}` };
      }),
      greeting: `Hello, ${first}! You have ${r.int(1, 10)} unread messages.`,
      favoriteFruit: r.pick(w.fruits),
    };
  }
}

/** `lower(s)`: ASCII A-Z to a-z (every string here is ASCII). */
function lower(s: string): string {
  return s.toLowerCase();
}

/** `pad(n, w)`: the non-negative n zero-padded to w digits. */
export function pad(n: number, width: number): string {
  return String(n).padStart(width, "0");
}

/** `dollars(cents)`: `$1,234.56`. */
export function dollars(cents: number): string {
  const digits = String(Math.floor(cents / 100));
  let grouped = "";
  for (let n = 0; n < digits.length; n++) {
    if (n > 0 && (digits.length - n) % 3 === 0) grouped += ",";
    grouped += digits[n];
  }
  return `$${grouped}.${pad(cents % 100, 2)}`;
}

/** `paragraph(list, min_len)`: words until at least `minLength` characters, capitalised, with a full stop. */
export function paragraph(r: SplitMix64, list: readonly string[], minLength: number): string {
  let s = "";
  while (s.length < minLength) {
    const word = r.pick(list);
    s = s === "" ? word : `${s} ${word}`;
  }
  return s.charAt(0).toUpperCase() + s.slice(1) + ".";
}

function phone(r: SplitMix64): string {
  const area = r.int(200, 999);
  const exchange = r.int(200, 999);
  const line = r.int(0, 9999);
  return `+1 (${area}) ${exchange}-${pad(line, 4)}`;
}

function address(r: SplitMix64, w: Words): string {
  const number = r.int(100, 9999);
  const street = r.pick(w.street_names);
  const streetType = r.pick(w.street_types);
  const city = r.pick(w.cities);
  const state = r.pick(w.states);
  const zip = r.int(0, 99_999);
  return `${number} ${street} ${streetType}, ${city}, ${state}, ${pad(zip, 5)}`;
}

function registered(r: SplitMix64): string {
  const [y, mo, d] = [r.int(2014, 2023), r.int(1, 12), r.int(1, 28)];
  const [h, mi, s] = [r.int(0, 23), r.int(0, 59), r.int(0, 59)];
  const tz = r.int(-12, 12);
  const sign = tz < 0 ? "-" : "+";
  return `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}T${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)} ${sign}${pad(Math.abs(tz), 2)}:00`;
}
