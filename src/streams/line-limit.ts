import net from "node:net";
import { fstatSync } from "node:fs";

/**
 * Splits newline-delimited bytes into lines (each with its "\n"), except lines longer than
 * `maxBytes`: those are dropped as they stream (never held whole) and reported once each. The
 * ACP SDK ends the whole connection on a line over its own limit (32 MiB); dropping it before
 * the SDK sees it keeps one hostile or broken message from ending the editor's session.
 * With `copy`, what is kept is copied out of the chunk (for a reader that reuses its buffer).
 */
export class LimitedLines {
  private pieces: Uint8Array[] = [];
  private size = 0;
  private dropping = false;
  /** With `copy`, a long line is assembled in one block sized to go straight to mmap. */
  private block: Buffer | undefined;

  constructor(
    private readonly maxBytes: number,
    private readonly onTooLong: () => void,
    private readonly emit: (line: Uint8Array) => void,
    private readonly options: { copy?: boolean } = {},
  ) {}

  /** Bytes of an unfinished line held until its newline arrives. */
  get heldBytes(): number {
    return this.dropping ? 0 : this.size;
  }

  write(chunk: Uint8Array): void {
    let start = 0;
    for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
      this.keep(chunk.subarray(start, nl + 1));
      this.endLine();
      start = nl + 1;
    }
    this.keep(chunk.subarray(start));
  }

  /** The input ended: a last line without a newline is still a line. */
  end(): void {
    this.endLine();
  }

  private keep(part: Uint8Array): void {
    if (this.dropping || part.byteLength === 0) return;
    const held = this.size;
    this.size += part.byteLength;
    if (this.size > this.maxBytes) {
      this.dropping = true;
      this.pieces = [];
      this.block = undefined;
    } else if (!this.options.copy) this.pieces.push(part);
    else if (this.block) this.block.set(part, held);
    else if (this.size <= LONG_LINE_BYTES) this.pieces.push(new Uint8Array(part)); // (Buffer#slice would not copy)
    else {
      // Copies of a reader's chunks are small heap allocations that glibc keeps after they are
      // freed (a dropped 50 MB line left 30 MiB resident); one block of at least 32 MiB is
      // always mmap'd, its untouched pages cost nothing, and freeing it gives all of it back.
      this.block = Buffer.allocUnsafeSlow(Math.max(this.maxBytes, MMAP_ALWAYS_BYTES));
      let at = 0;
      for (const piece of this.pieces) {
        this.block.set(piece, at);
        at += piece.byteLength;
      }
      this.block.set(part, held);
      this.pieces = [];
    }
  }

  private endLine(): void {
    if (this.dropping) this.onTooLong();
    else if (this.block) this.emit(this.block.subarray(0, this.size));
    else if (this.pieces.length > 0) this.emit(this.pieces.length === 1 ? this.pieces[0]! : Buffer.concat(this.pieces));
    this.pieces = [];
    this.block = undefined;
    this.size = 0;
    this.dropping = false;
  }
}

/** Past this, a copied line moves into one large block. */
const LONG_LINE_BYTES = 256 * 1024;
/** glibc's largest dynamic mmap threshold on 64-bit: allocations this big never land in its heap. */
const MMAP_ALWAYS_BYTES = 32 * 1024 * 1024;

/** The same limit as a transform over a byte stream. */
export function limitLineLength(maxBytes: number, onTooLong: () => void): TransformStream<Uint8Array, Uint8Array> {
  let lines: LimitedLines | undefined;
  return new TransformStream<Uint8Array, Uint8Array>({
    start(controller) {
      lines = new LimitedLines(maxBytes, onTooLong, (line) => controller.enqueue(line));
    },
    transform(chunk) {
      lines!.write(chunk);
    },
    flush() {
      lines!.end();
    },
  });
}

/**
 * The lines of a pipe or socket file descriptor (stdin as editors give it), read into one
 * reused 64 KiB buffer: only the lines kept are copied. Node's default reads allocate a buffer
 * per read, and a burst of input (a 50 MB line) left tens of MiB of freed buffers that the C
 * allocator never gave back. Waits for the consumer (the read pauses while `highWaterMark`
 * lines are queued). Undefined when the descriptor is not a pipe or socket (a file, a TTY), and on
 * Windows.
 */
export function readPipeLines(fd: number, maxBytes: number, onTooLong: () => void, highWaterMark = 64): ReadableStream<Uint8Array> | undefined {
  // (Windows hands pipes to Node differently: its own stream there.)
  if (process.platform === "win32") return undefined;
  const stat = fstatSync(fd);
  if (!stat.isFIFO() && !stat.isSocket()) return undefined;
  let socket: net.Socket | undefined;
  let stopped = false;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const lines = new LimitedLines(maxBytes, onTooLong, (line) => controller.enqueue(line), { copy: true });
        // Node's constructor takes `onread` (documented for new net.Socket), its types only on connect.
        const options: net.SocketConstructorOpts & { onread: net.OnReadOpts } = {
          fd,
          readable: true,
          writable: false,
          onread: {
            buffer: Buffer.allocUnsafe(64 * 1024),
            // Returning false stops reading (Node calls readStop; the stream is not "paused").
            callback: (bytesRead: number, buffer: Uint8Array) => {
              lines.write(buffer.subarray(0, bytesRead));
              stopped = (controller.desiredSize ?? 1) <= 0;
              return !stopped;
            },
          },
        };
        socket = new net.Socket(options);
        socket.on("end", () => {
          lines.end();
          controller.close();
        });
        socket.on("error", (err) => controller.error(err));
      },
      pull() {
        // read(0) starts the handle reading again.
        if (stopped) {
          stopped = false;
          socket?.read(0);
        }
      },
      cancel() {
        socket?.destroy();
      },
    },
    { highWaterMark },
  );
}
