// The command line of server.mjs, parsed without side effects so that the tests can check it.

export const USAGE =
  "usage: node server.mjs --port N [--tls-port M] [--h2-port P] [--static DIR] [--write-dir DIR] [--encryption=yes|no]";

/** A bad command line: server.mjs prints `message` on one line and exits with 2. */
export class UsageError extends Error {}

/**
 * @typedef {object} Options
 * @property {number | undefined} plainPort  port of plain HTTP/1.1 + WS (undefined with --encryption=yes)
 * @property {number | undefined} tlsPort    port of HTTPS + WSS
 * @property {number | undefined} h2Port     port of HTTP/2 over TLS (HTTP/1.1 by ALPN too)
 * @property {string | undefined} staticDir  directory served at /
 * @property {string | undefined} writeDir   directory of the file every received text is appended to
 * @property {boolean} help
 */

const VALUED = new Set(["--port", "--tls-port", "--h2-port", "--static", "--write-dir", "--encryption"]);

/** @param {string} flag @param {string} value */
function parsePort(flag, value) {
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65535)
    throw new UsageError(`${flag} wants a port number 0..65535, not \`${value}\``);
  return Number(value);
}

/**
 * Parses `argv` (without node and the script). Flags take their value as `--flag VALUE` or
 * `--flag=VALUE`; each may be given once.
 * @param {string[]} argv
 * @returns {Options}
 */
export function parseArgs(argv) {
  /** @type {Map<string, string>} */
  const seen = new Map();
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--help" || arg === "-h") {
      help = true;
      continue;
    }
    const eq = arg.indexOf("=");
    const flag = arg.startsWith("--") && eq > 0 ? arg.slice(0, eq) : arg;
    if (!VALUED.has(flag)) throw new UsageError(`unknown argument \`${arg}\` (${USAGE})`);
    let value;
    if (flag !== arg) value = arg.slice(eq + 1);
    else if (i + 1 < argv.length && !argv[i + 1].startsWith("--")) value = argv[++i];
    else throw new UsageError(`${flag} wants a value`);
    if (value === "") throw new UsageError(`${flag} wants a value`);
    if (seen.has(flag)) throw new UsageError(`${flag} is given twice`);
    seen.set(flag, value);
  }
  if (help)
    return { plainPort: undefined, tlsPort: undefined, h2Port: undefined, staticDir: undefined, writeDir: undefined, help };

  const encryption = seen.get("--encryption") ?? "no";
  if (encryption !== "yes" && encryption !== "no")
    throw new UsageError(`--encryption wants yes or no, not \`${encryption}\``);
  const portArg = seen.get("--port");
  if (portArg === undefined) throw new UsageError(`--port is required (${USAGE})`);
  const port = parsePort("--port", portArg);
  const tlsArg = seen.get("--tls-port");
  if (encryption === "yes" && tlsArg !== undefined)
    throw new UsageError("--encryption=yes serves TLS on --port; do not give --tls-port with it");
  let tlsPort = tlsArg === undefined ? undefined : parsePort("--tls-port", tlsArg);
  let plainPort = /** @type {number | undefined} */ (port);
  if (encryption === "yes") {
    tlsPort = port;
    plainPort = undefined;
  }
  const h2Arg = seen.get("--h2-port");
  const h2Port = h2Arg === undefined ? undefined : parsePort("--h2-port", h2Arg);
  const named = [
    ["--port", plainPort],
    ["--tls-port", tlsPort],
    ["--h2-port", h2Port],
  ].filter(([, p]) => p !== undefined && p !== 0);
  for (let i = 0; i < named.length; i++)
    for (let j = i + 1; j < named.length; j++)
      if (named[i][1] === named[j][1])
        throw new UsageError(`${encryption === "yes" && named[i][0] === "--tls-port" ? "--port" : named[i][0]} and ${named[j][0]} are both ${named[i][1]}`);
  return { plainPort, tlsPort, h2Port, staticDir: seen.get("--static"), writeDir: seen.get("--write-dir"), help };
}
