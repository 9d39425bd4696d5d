// The TLS certificate: self-signed, made in process at every start (no openssl CLI), for
// 127.0.0.1, ::1 and localhost. RSA 2048 with SHA-256, as `openssl req -newkey rsa:2048` (the
// study's "OpenSSL CSR and key") would most likely have made it.
import selfsigned from "selfsigned";

/** @returns {Promise<{ key: string, cert: string }>} PEM private key and certificate */
export async function selfSignedCert() {
  const day = 24 * 3600 * 1000;
  const now = Date.now();
  const pems = await selfsigned.generate([{ name: "commonName", value: "localhost" }], {
    keyType: "rsa",
    keySize: 2048,
    algorithm: "sha256",
    notBeforeDate: new Date(now - day), // a little clock skew is no reason to refuse it
    notAfterDate: new Date(now + 30 * day),
    extensions: [
      { name: "basicConstraints", cA: false },
      { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
      { name: "extKeyUsage", serverAuth: true },
      {
        name: "subjectAltName",
        altNames: [
          { type: 2, value: "localhost" },
          { type: 7, ip: "127.0.0.1" },
          { type: 7, ip: "::1" },
        ],
      },
    ],
  });
  return { key: pems.private, cert: pems.cert };
}
