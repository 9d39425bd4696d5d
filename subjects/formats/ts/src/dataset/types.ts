// The dataset types, with the field names and order of schema/datasets.json. Plain data only: no
// format gets a property of its own here; a codec that needs another shape builds it itself.
// i64 fields are JS numbers: every value the generator makes is below 2^53, and decoders reject
// an integer they cannot hold exactly (see shape.ts).

import type { DatasetKind } from "./spec.js";

/** One user of the "Ways to optimize web applications" serialization test. */
export interface User {
  id: number;
  name: string;
  email: string;
  age: number;
  is_active: boolean;
  tags: string[];
}

/** Describes the user list it travels with. */
export interface Metadata {
  version: string;
  created_at: string;
  total_count: number;
}

/** Root of the `users` dataset. */
export interface UsersDocument {
  users: User[];
  metadata: Metadata;
}

/** One element of the `numeric` dataset: mostly numbers. */
export interface NumericObject {
  id: string;
  index: number;
  numbr: number;
  coordinates: Coordinate[];
}

export interface Coordinate {
  /** Milliseconds since the Unix epoch. */
  timestamp: number;
  latitude: number;
  longitude: number;
}

/** One element of the `dummy` dataset: mostly strings, in the shape of a json-generator record. */
export interface DummyObject {
  _id: string;
  index: number;
  guid: string;
  isActive: boolean;
  balance: string;
  picture: string;
  age: number;
  eyeColor: string;
  name: string;
  gender: string;
  company: string;
  email: string;
  phone: string;
  address: string;
  about: string;
  registered: string;
  latitude: number;
  longitude: number;
  tags: string[];
  friends: DummyFriend[];
  greeting: string;
  favoriteFruit: string;
}

export interface DummyFriend {
  id: number;
  name: string;
}

/** A generated or decoded dataset: which one, and its root value as datasets.json describes it. */
export type Dataset =
  | { readonly kind: "users"; readonly root: UsersDocument }
  | { readonly kind: "numeric"; readonly root: NumericObject[] }
  | { readonly kind: "dummy"; readonly root: DummyObject[] };

/** The root value's type of each dataset. */
export interface RootOf {
  users: UsersDocument;
  numeric: NumericObject[];
  dummy: DummyObject[];
}

/** Pairs a root value with its kind. The caller vouches that `root` has the kind's shape. */
export function dataset<K extends DatasetKind>(kind: K, root: RootOf[K]): Dataset {
  return { kind, root } as Dataset;
}

/** Number of top-level objects: users, or list elements. */
export function objectCount(data: Dataset): number {
  return data.kind === "users" ? data.root.users.length : data.root.length;
}
