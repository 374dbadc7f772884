/** What the route sends back: status, headers and a body (text or a live stream; "" for a 204 or 205). */
export interface ProxyResponse {
  status: number;
  headers: Record<string, string>;
  body: string | ReadableStream<Uint8Array>;
}
