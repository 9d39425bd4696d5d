// The splitmix64 generator exactly as schema/datasets.json spells it out, in BigInt so every
// step wraps modulo 2^64 like the reference. Slow, but it runs once per dataset, before timing.

const MASK = (1n << 64n) - 1n;
const GAMMA = 0x9e3779b97f4a7c15n;
const MUL1 = 0xbf58476d1ce4e5b9n;
const MUL2 = 0x94d049bb133111ebn;

export class SplitMix64 {
  private state: bigint;

  constructor(seed: number | bigint) {
    this.state = BigInt(seed) & MASK;
  }

  /** `next()`: the next unsigned 64-bit value. */
  next(): bigint {
    this.state = (this.state + GAMMA) & MASK;
    let z = this.state;
    z = ((z ^ (z >> 30n)) * MUL1) & MASK;
    z = ((z ^ (z >> 27n)) * MUL2) & MASK;
    return z ^ (z >> 31n);
  }

  /**
   * `below(n)`: `next() mod n`, n < 2^54. The modulo bias is part of the spec: every language
   * reproduces it exactly, which a rejection loop would make harder to port.
   */
  below(n: number): number {
    return Number(this.next() % BigInt(n));
  }

  /** `int(lo, hi)`: an integer in [lo, hi]; |lo|, |hi| < 2^53. */
  int(lo: number, hi: number): number {
    return lo + this.below(hi - lo + 1);
  }

  /** `fixed(lo, hi, scale)`: one IEEE-754 division of two exact integers, as in every language. */
  fixed(lo: number, hi: number, scale: number): number {
    return this.int(lo, hi) / scale;
  }

  bool(): boolean {
    return this.below(2) === 1;
  }

  pick(list: readonly string[]): string {
    return list[this.below(list.length)]!;
  }

  /** `hex64()`: 16 lowercase hex digits, zero-padded. */
  hex64(): string {
    return this.next().toString(16).padStart(16, "0");
  }

  /** `object_id()`: 24 hex digits from two draws. */
  objectId(): string {
    const first = this.hex64();
    return first + this.hex64().slice(0, 8);
  }

  /** `guid()`: 32 hex digits from two draws, grouped 8-4-4-4-12. */
  guid(): string {
    const h = this.hex64() + this.hex64();
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
  }
}
