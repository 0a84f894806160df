/**
 * Passes newline-delimited bytes through, line by line, except lines longer than `maxBytes`:
 * those are dropped as they stream (never held whole) and reported once each. The ACP SDK
 * ends the whole connection on a line over its own limit (32 MiB); dropping it before the SDK
 * sees it keeps one hostile or broken message from ending the editor's session.
 */
export function limitLineLength(maxBytes: number, onTooLong: () => void): TransformStream<Uint8Array, Uint8Array> {
  let pieces: Uint8Array[] = [];
  let size = 0;
  let dropping = false;
  const endLine = (controller: TransformStreamDefaultController<Uint8Array>): void => {
    if (dropping) onTooLong();
    else if (pieces.length > 0) controller.enqueue(pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces));
    pieces = [];
    size = 0;
    dropping = false;
  };
  const keep = (part: Uint8Array): void => {
    if (dropping || part.byteLength === 0) return;
    size += part.byteLength;
    if (size > maxBytes) {
      dropping = true;
      pieces = [];
    } else pieces.push(part);
  };
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      let start = 0;
      for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
        keep(chunk.subarray(start, nl + 1));
        endLine(controller);
        start = nl + 1;
      }
      keep(chunk.subarray(start));
    },
    flush(controller) {
      endLine(controller);
    },
  });
}
