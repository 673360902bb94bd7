import { request } from 'node:http';

/** A server's answer to a streamed request, with how many body bytes had been written by then. */
export interface StreamedAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  sent: number;
}

/**
 * A request whose body is `chunks` (chunked when no length is given), answered as soon as the
 * server answers: a refused upload is not sent whole, and `sent` says how much had left.
 */
export function streamedRequest(
  url: string,
  options: { method: string; headers: Record<string, string>; chunks: () => Iterator<Buffer> },
): Promise<StreamedAnswer> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const req = request(url, { method: options.method, headers: options.headers }, (res) => {
      answered = true;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, sent }));
      res.on('error', reject);
    });
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    // Resumed where it stopped on each drain (`next`, never `for…of`, which would close it).
    const chunks = options.chunks();
    const pump = () => {
      for (;;) {
        if (answered || req.destroyed) return;
        const next = chunks.next();
        if (next.done) return void req.end();
        sent += next.value.length;
        if (!req.write(next.value)) return void req.once('drain', pump);
      }
    };
    pump();
  });
}
