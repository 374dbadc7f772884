/**
 * The ids of the gateway's own batches and files. They work wherever OpenAI's do (the SDKs take
 * any string), and their prefixes tell a gateway id from a provider's without reading the store.
 */
import { createHash } from "node:crypto";
import { uuidv7 } from "../lib/ids.ts";

const FILE_PREFIX = "file-gw";
const BATCH_PREFIX = "batch_gw";

/** Time-ordered, so listing by id is listing by age. */
const token = (): string => uuidv7().replaceAll("-", "");

export const newFileId = (): string => `${FILE_PREFIX}${token()}`;
export const newBatchId = (): string => `${BATCH_PREFIX}${token()}`;
export const isGatewayFileId = (id: string): boolean => id.startsWith(FILE_PREFIX);
export const isGatewayBatchId = (id: string): boolean => id.startsWith(BATCH_PREFIX);

/** A batch's output or error file: the same id whichever replica writes it. */
export function resultFileId(batchId: string, kind: "output" | "error"): string {
  return `${FILE_PREFIX}${batchId.slice(BATCH_PREFIX.length)}${kind === "output" ? "o" : "e"}`;
}

/** The id of one request of a batch in its output line (`batch_req_…`): the same whoever writes it. */
export function requestLineId(batchId: string, customId: string): string {
  return `batch_req_${createHash("sha256").update(`${batchId}\n${customId}`).digest("hex").slice(0, 32)}`;
}
