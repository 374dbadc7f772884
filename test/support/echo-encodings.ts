import fc from "fast-check";

/**
 * The ways an upstream may carry a credential it echoes, for the scrubbing property tests: each
 * turns the credential into the text the upstream writes.
 */
export const ECHO_ENCODINGS = {
  plain: (secret: string) => secret,
  "url-encoded": (secret: string) => encodeURIComponent(secret),
  "url-encoded, every byte, lower case": (secret: string) => [...Buffer.from(secret, "utf8")].map((byte) => `%${byte.toString(16).padStart(2, "0")}`).join(""),
  "json-escaped": (secret: string) => JSON.stringify(secret).slice(1, -1),
  "json with \\/": (secret: string) => JSON.stringify(secret).slice(1, -1).replaceAll("/", "\\/"),
  "json \\u of every character": (secret: string) => [...secret].map((char, index) => unicodeEscapes(char, index % 2 === 0)).join(""),
  "json in json": (secret: string) => JSON.stringify(JSON.stringify(secret)).slice(3, -3),
  "url-encoded in json": (secret: string) => JSON.stringify(encodeURIComponent(secret)).slice(1, -1),
} as const satisfies Record<string, (secret: string) => string>;

export type EchoEncoding = keyof typeof ECHO_ENCODINGS;
export const ECHO_ENCODING_NAMES = Object.keys(ECHO_ENCODINGS) as EchoEncoding[];

function unicodeEscapes(char: string, upper: boolean): string {
  return [...Array(char.length).keys()]
    .map((unit) => `\\u${char.charCodeAt(unit).toString(16).padStart(4, "0")}`)
    .map((escape) => (upper ? escape.toUpperCase().replace("\\U", "\\u") : escape))
    .join("");
}

/**
 * A credential an HTTP header can carry: 12–48 characters from the printable ASCII range
 * (space included, but not first or last, where HTTP would trim it).
 */
export const headerSecret = fc
  .tuple(fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code)), minLength: 2, maxLength: 2 }), fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)), minLength: 10, maxLength: 46 }))
  .map(([ends, middle]) => `${ends[0]}${middle}${ends[1]}`);

/** Every form of `secret` the encodings give, to look for in what the gateway wrote. */
export function encodedForms(secret: string): string[] {
  return [...new Set(Object.values(ECHO_ENCODINGS).map((encode) => encode(secret)))];
}
