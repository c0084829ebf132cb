import http from 'node:http';

/**
 * AzLink's instant commands: a `POST http://<server>:<port>/` with `Authorization: <sha256 hex of
 * the plugin's key>` makes the plugin fetch from the site at once instead of at its next minute.
 * Resolves with the listener's status; rejects when it cannot be reached within `timeoutMs`.
 */
export function pingAzLink(host: string, port: number, keyHash: string, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host, port, path: '/', method: 'POST', headers: { authorization: keyHash, 'content-length': '0' } });
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.on('response', (res) => {
      clearTimeout(timer);
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.end();
  });
}
