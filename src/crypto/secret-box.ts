import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";

export interface SecretBox {
  seal(plaintext: string): string;
  /** Throws when the text was tampered with or sealed under a key the box does not hold. */
  open(sealed: string): string;
  /** Whether `sealed` is already sealed under the key that seals now (nothing to re-seal after a rotation). */
  isCurrent(sealed: string): boolean;
}

const KEY_BYTES = 32;
const IV_BYTES = 12;
const KEY_ID_BYTES = 8;
/** Sealed before master keys could rotate: `v1.<iv>.<tag>.<ciphertext>`, no key id. Still opened. */
const LEGACY_VERSION = "v1";
/** `v2.<key id>.<iv>.<tag>.<ciphertext>`; `v2.<key id>` is bound in as additional data. */
const FORMAT_VERSION = "v2";
const KEY_FILE = "encryption.key";

/**
 * A key's id in sealed text: the first 8 bytes of SHA-256 over a label and the key, base64url.
 * It names which master key sealed a value without telling anything about that key.
 */
export function masterKeyId(key: Buffer): string {
  return createHash("sha256").update("gateway-master-key-id\0").update(key).digest().subarray(0, KEY_ID_BYTES).toString("base64url");
}

/**
 * AES-256-GCM sealing of upstream secrets under a key ring. The first key seals; every key
 * opens. A sealed value is `v2.<key id>.<iv>.<tag>.<ciphertext>` (base64url parts), so the key
 * that sealed it is known without trying; values sealed before key ids (`v1.…`) are opened by
 * trying each key in turn (GCM's tag tells a wrong key). `isCurrent` says whether a value needs
 * no re-sealing after a rotation (`control-plane/reseal-secrets.ts`): sealed under the first key, or a
 * `v1.` value while the ring has one key.
 */
export function createSecretBox(masterKeys: Buffer | readonly Buffer[]): SecretBox {
  const ring = Array.isArray(masterKeys) ? (masterKeys as readonly Buffer[]) : [masterKeys as Buffer];
  if (ring.length === 0) throw new Error("at least one master key is needed");
  for (const key of ring) if (key.length !== KEY_BYTES) throw new Error(`the master key must be ${KEY_BYTES} bytes`);
  const byId = new Map(ring.map((key) => [masterKeyId(key), key] as const));
  const primary = ring[0] as Buffer;
  const primaryId = masterKeyId(primary);
  return {
    seal(plaintext) {
      const iv = randomBytes(IV_BYTES);
      const header = `${FORMAT_VERSION}.${primaryId}`;
      const cipher = createCipheriv("aes-256-gcm", primary, iv);
      cipher.setAAD(Buffer.from(header, "utf8"));
      const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      return [header, ...[iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString("base64url"))].join(".");
    },
    open(sealed) {
      const parts = sealed.split(".");
      if (parts[0] === FORMAT_VERSION && parts.length === 5) {
        const [, keyId, iv, tag, ciphertext] = parts as [string, string, string, string, string];
        const key = byId.get(keyId);
        if (!key) throw new Error("sealed under a master key the gateway does not hold");
        return decrypt(key, iv, tag, ciphertext, `${FORMAT_VERSION}.${keyId}`);
      }
      if (parts[0] === LEGACY_VERSION && parts.length === 4) {
        const [, iv, tag, ciphertext] = parts as [string, string, string, string];
        for (const key of ring) {
          try {
            return decrypt(key, iv, tag, ciphertext, null);
          } catch {
            // Another key of the ring may have sealed it.
          }
        }
        throw new Error("sealed under a master key the gateway does not hold, or altered");
      }
      throw new Error("not a sealed secret");
    },
    isCurrent(sealed) {
      // With one key a `v1.` value is under it (or under none): rewriting it only to add the key
      // id would leave instances still on the former release unable to read any stored secret.
      return sealed.startsWith(`${FORMAT_VERSION}.${primaryId}.`) || (ring.length === 1 && sealed.startsWith(`${LEGACY_VERSION}.`));
    },
  };
}

function decrypt(key: Buffer, iv: string, tag: string, ciphertext: string, header: string | null): string {
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
  if (header !== null) decipher.setAAD(Buffer.from(header, "utf8"));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString("utf8");
}

/** Reads a 32-byte key written as 64 hex digits or as base64; null when it is neither. */
export function parseMasterKey(text: string): Buffer | null {
  const trimmed = text.trim();
  if (/^[0-9a-f]{64}$/i.test(trimmed)) return Buffer.from(trimmed, "hex");
  const decoded = Buffer.from(trimmed, "base64");
  return decoded.length === KEY_BYTES ? decoded : null;
}

/**
 * A key ring written as `new,old,…` (one key alone is a ring of one): the first key seals,
 * all open. Null when any entry is not a 32-byte key or the list is empty.
 */
export function parseMasterKeys(text: string): Buffer[] | null {
  const entries = text.split(",").map((entry) => entry.trim());
  if (entries.some((entry) => entry === "")) return null;
  const keys = entries.map(parseMasterKey);
  return keys.every((key): key is Buffer => key !== null) ? keys : null;
}

/**
 * The master key ring: `GATEWAY_ENCRYPTION_KEY` (`new,old`: see `parseMasterKeys`) when set;
 * else `<dataDir>/encryption.key`, generated on first start with mode 600 so that only the
 * gateway's user can read it (it may hold a ring written the same way).
 */
export async function loadMasterKeys(options: { envKey?: string; dataDir: string }): Promise<Buffer[]> {
  if (options.envKey) {
    const keys = parseMasterKeys(options.envKey);
    if (!keys) throw new Error("GATEWAY_ENCRYPTION_KEY must be 32 bytes, as 64 hex digits or base64 (or a comma-separated list of them, the new key first)");
    return keys;
  }
  const path = join(options.dataDir, KEY_FILE);
  const existing = await readFile(path, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return null;
    throw error;
  });
  if (existing !== null) {
    const keys = parseMasterKeys(existing);
    if (!keys) throw new Error(`${path} does not hold a 32-byte key`);
    return keys;
  }
  const key = randomBytes(KEY_BYTES);
  await mkdir(options.dataDir, { recursive: true });
  // `wx` fails if another process created the file meanwhile; then use theirs.
  try {
    await writeFile(path, `${key.toString("hex")}\n`, { mode: 0o600, flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return loadMasterKeys(options);
  }
  await chmod(path, 0o600);
  return [key];
}

/** The sealing key alone (the first of the ring); see `loadMasterKeys`. */
export async function loadMasterKey(options: { envKey?: string; dataDir: string }): Promise<Buffer> {
  return (await loadMasterKeys(options))[0] as Buffer;
}
