import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileRoutes } from '../../../../src/adapters/inbound/http/routes/files.js';
import { LocalFileStorage } from '../../../../src/adapters/outbound/storage/LocalFileStorage.js';
import { startHttpApp, type RunningApp } from '../../../support/httpApp.js';

async function* once(bytes: Buffer) {
  yield bytes;
}

/** Sends raw bytes on one connection and reads the first answer's status line. */
function rawRequest(url: string, text: Buffer): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(text));
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

describe('/files/ (the local engine’s links)', () => {
  let root: string;
  let storage: LocalFileStorage;
  let app: RunningApp;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'portico-files-route-'));
    storage = new LocalFileStorage({ root, signingSecret: 'route-test-secret-of-at-least-32-bytes', publicUrl: '' });
    // A 1 KiB body limit: the uploads below are larger, and are not held to it.
    app = await startHttpApp({ routes: [fileRoutes(storage)], bodyLimitBytes: 1024 });
  });
  after(async () => {
    await app.close();
    await rm(root, { recursive: true, force: true });
  });

  const at = (link: string): string => `${app.url}${link}`;

  it('serves a file with its signed type and length, never sniffed, sandboxed, as an attachment when signed so', async () => {
    const bytes = Buffer.from('<html><script>alert(1)</script></html>');
    await storage.write('pages/1/file/a', once(bytes), { contentType: 'text/html', maxBytes: 1000 });
    const link = await storage.downloadUrl('pages/1/file/a', {
      contentType: 'text/html',
      attachment: true,
      expiresInSeconds: 60,
    });
    const res = await fetch(at(link));
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('text/html');
    expect(res.headers.get('content-length')).to.equal(String(bytes.length));
    expect(res.headers.get('content-disposition')).to.equal('attachment');
    expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
    expect(res.headers.get('content-security-policy')).to.equal("default-src 'none'; sandbox");
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).to.equal(true);
  });

  it('answers a HEAD with the headers and no body', async () => {
    await storage.write('pics/1/photo/h', once(randomBytes(300)), { contentType: 'image/png', maxBytes: 1000 });
    const link = await storage.downloadUrl('pics/1/photo/h', {
      contentType: 'image/png',
      attachment: false,
      expiresInSeconds: 60,
    });
    const res = await fetch(at(link), { method: 'HEAD' });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-length')).to.equal('300');
    expect(res.headers.get('content-disposition')).to.equal(null);
  });

  it('refuses a bad link with 403 FORBIDDEN in the error envelope, and a missing object with 404', async () => {
    const res = await fetch(at('/files/pics/1/photo/h?expires=1&type=image/png&disposition=inline&signature=x'));
    expect(res.status).to.equal(403);
    expect(await res.json()).to.deep.equal({
      success: false,
      error: { code: 'FORBIDDEN', message: 'the link is invalid or has expired' },
    });
    const missing = await storage.downloadUrl('pics/1/photo/none', {
      contentType: 'image/png',
      attachment: false,
      expiresInSeconds: 60,
    });
    const gone = await fetch(at(missing));
    expect(gone.status).to.equal(404);
    expect(((await gone.json()) as { error: { code: string } }).error.code).to.equal('NOT_FOUND');
  });

  it('takes a presigned upload larger than server.body_limit, of any type, streamed past the JSON parser', async () => {
    const bytes = randomBytes(200_000);
    const upload = await storage.uploadUrl('docs/1/file/big', {
      contentType: 'application/json',
      size: bytes.length,
      expiresInSeconds: 60,
    });
    const res = await fetch(at(upload.url), { method: 'PUT', headers: upload.headers, body: bytes });
    expect(res.status).to.equal(200);
    expect(await res.text()).to.equal('');
    expect(await storage.stat('docs/1/file/big')).to.include({ size: bytes.length, contentType: 'application/json' });
  });

  it('refuses a chunked upload (no Content-Length) with 403, storing nothing', async () => {
    const upload = await storage.uploadUrl('docs/1/file/chunked', {
      contentType: 'image/png',
      size: 10,
      expiresInSeconds: 60,
    });
    const path = new URL(at(upload.url));
    const answer = await rawRequest(
      app.url,
      Buffer.from(
        `PUT ${path.pathname}${path.search} HTTP/1.1\r\nHost: x\r\nContent-Type: image/png\r\n` +
          'Transfer-Encoding: chunked\r\nConnection: close\r\n\r\na\r\n0123456789\r\n0\r\n\r\n',
      ),
    );
    expect(answer.split('\r\n')[0]).to.equal('HTTP/1.1 403 Forbidden');
    expect(await storage.stat('docs/1/file/chunked')).to.equal(undefined);
  });

  it('never keeps more than Content-Length bytes of a body that runs past it', async () => {
    const upload = await storage.uploadUrl('docs/1/file/long', {
      contentType: 'image/png',
      size: 10,
      expiresInSeconds: 60,
    });
    const path = new URL(at(upload.url));
    const answer = await rawRequest(
      app.url,
      Buffer.from(
        `PUT ${path.pathname}${path.search} HTTP/1.1\r\nHost: x\r\nContent-Type: image/png\r\n` +
          'Content-Length: 10\r\nConnection: close\r\n\r\n0123456789ABCDEFGHIJ',
      ),
    );
    // The bytes past it are no request: Node refuses them and closes the connection, the upload with it.
    expect(answer.split('\r\n')[0]).to.match(/^HTTP\/1\.1 (200 OK|400 Bad Request)$/);
    const kept = await storage.stat('docs/1/file/long');
    expect(kept === undefined || kept.size === 10, `kept ${kept?.size} bytes`).to.equal(true);
  });

  it('leaves a JSON body on other routes to the body parser and its limit', async () => {
    const res = await fetch(at('/files/a/b'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ big: 'x'.repeat(2000) }),
    });
    expect(res.status).to.equal(413);
  });
});
