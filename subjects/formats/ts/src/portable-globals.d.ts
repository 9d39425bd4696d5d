// For tsconfig.portable.json only, which checks the portable modules without Node's types: the
// one Node-named module they may import, `buffer` (Node's own in Node, the npm `buffer` package
// in a browser bundle), declared as far as avro.ts uses it.
declare module "buffer" {
  export const Buffer: {
    from(buffer: ArrayBufferLike, byteOffset?: number, length?: number): Uint8Array;
  };
}
