/**
 * Tool-call ids for Gemini function calls. Gemini (Developer API) rarely gives a call an id, and
 * the OpenAI format needs one to pair a tool message with its call, so the gateway makes one from
 * the answer's id and the call's position: the same answer always gives the same ids. A call's
 * `thoughtSignature` (which Gemini 3 requires back with the call on the next turn) rides in the id
 * after a marker, so the request transform can return it without the gateway storing anything.
 * https://ai.google.dev/gemini-api/docs/thought-signatures
 */

const SIGNATURE_MARKER = "__ts__";

/**
 * The call's own id when Gemini gave one, else `call_<answer>_<candidate>_<position>` (the answer
 * part only when Gemini named the answer); then the signature, when there is one.
 */
export function toolCallId(
  own: string | undefined,
  at: { responseId: string | undefined; candidate: number; position: number },
  signature: string | undefined,
): string {
  const base = own || (at.responseId ? `call_${at.responseId}_${at.candidate}_${at.position}` : `call_${at.candidate}_${at.position}`);
  return signature ? `${base}${SIGNATURE_MARKER}${signature}` : base;
}

/** The thought signature a tool-call id carries, if any. */
export function signatureOf(id: string): string | undefined {
  const at = id.indexOf(SIGNATURE_MARKER);
  return at === -1 ? undefined : id.slice(at + SIGNATURE_MARKER.length) || undefined;
}
