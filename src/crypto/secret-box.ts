import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { SecretBox } from "../deps.ts";

const KEY_BYTES = 32;
const IV_BYTES = 12;
const FORMAT_VERSION = "v1";
const KEY_FILE = "encryption.key";

/**
 * AES-256-GCM sealing of upstream secrets. A sealed value is `v1.<iv>.<tag>.<ciphertext>`
 * (base64url parts): the version prefix leaves room to rotate the scheme later.
 */
export function createSecretBox(masterKey: Buffer): SecretBox {
  if (masterKey.length !== KEY_BYTES) throw new Error(`the master key must be ${KEY_BYTES} bytes`);
  return {
    seal(plaintext) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", masterKey, iv);
      const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      return [FORMAT_VERSION, iv, cipher.getAuthTag(), ciphertext].map(encodePart).join(".");
    },
    open(sealed) {
      const [version, iv, tag, ciphertext] = sealed.split(".");
      if (version !== FORMAT_VERSION || !iv || !tag || ciphertext === undefined) {
        throw new Error("not a sealed secret");
      }
      const decipher = createDecipheriv("aes-256-gcm", masterKey, Buffer.from(iv, "base64url"));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString("utf8");
    },
  };
}

function encodePart(part: string | Buffer): string {
  return typeof part === "string" ? part : part.toString("base64url");
}

/** Reads a 32-byte key written as 64 hex digits or as base64; null when it is neither. */
export function parseMasterKey(text: string): Buffer | null {
  const trimmed = text.trim();
  if (/^[0-9a-f]{64}$/i.test(trimmed)) return Buffer.from(trimmed, "hex");
  const decoded = Buffer.from(trimmed, "base64");
  return decoded.length === KEY_BYTES ? decoded : null;
}

/**
 * The master key: `GATEWAY_ENCRYPTION_KEY` when set; else `<dataDir>/encryption.key`,
 * generated on first start with mode 600 so that only the gateway's user can read it.
 */
export async function loadMasterKey(options: { envKey?: string; dataDir: string }): Promise<Buffer> {
  if (options.envKey) {
    const key = parseMasterKey(options.envKey);
    if (!key) throw new Error("GATEWAY_ENCRYPTION_KEY must be 32 bytes, as 64 hex digits or base64");
    return key;
  }
  const path = join(options.dataDir, KEY_FILE);
  const existing = await readFile(path, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return null;
    throw error;
  });
  if (existing !== null) {
    const key = parseMasterKey(existing);
    if (!key) throw new Error(`${path} does not hold a 32-byte key`);
    return key;
  }
  const key = randomBytes(KEY_BYTES);
  await mkdir(options.dataDir, { recursive: true });
  // `wx` fails if another process created the file meanwhile; then use theirs.
  try {
    await writeFile(path, `${key.toString("hex")}\n`, { mode: 0o600, flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return loadMasterKey(options);
  }
  await chmod(path, 0o600);
  return key;
}
