/**
 * The floor: the thinnest Bun proxy we can write. The gateway's overhead is judged against it,
 * not against zero. Run as `PORT=n UPSTREAM=http://127.0.0.1:m bun scripts/bench/floor-proxy.ts`.
 */
const upstream = process.env.UPSTREAM ?? "http://127.0.0.1:1";

Bun.serve({
  hostname: "127.0.0.1",
  port: Number(process.env.PORT ?? 0),
  async fetch(request) {
    const { pathname, search } = new URL(request.url);
    return fetch(`${upstream}${pathname}${search}`, {
      method: request.method,
      headers: { "content-type": request.headers.get("content-type") ?? "application/json" },
      body: await request.arrayBuffer(),
    });
  },
});
