// Reads a catalog from a local folder (an air-gapped mirror, a USB stick) through tuf-js's fetcher
// interface, so a folder gets exactly the same verification as HTTPS.
import { createReadStream, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { BaseFetcher } from 'tuf-js';
import { DownloadHTTPError } from 'tuf-js/dist/error.js';

export class FileFetcher extends BaseFetcher {
  override async fetch(url: string): Promise<ReadableStream<Uint8Array<ArrayBuffer>>> {
    const path = fileURLToPath(url);
    let isFile: boolean;
    try {
      isFile = statSync(path).isFile();
    } catch {
      isFile = false;
    }
    // tuf-js probes N+1.root.json until a 403/404: a missing file must look like one, or the probe never ends well.
    if (!isFile) throw new DownloadHTTPError(`${path} does not exist`, 404);
    return Readable.toWeb(createReadStream(path)) as unknown as ReadableStream<Uint8Array<ArrayBuffer>>;
  }
}
