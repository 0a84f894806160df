// The browser of a browser sign-in: whether this machine has a display to open one on, and the
// platform's opener for Codex's sign-in address (never a shell), watched so that an opener that
// cannot run or finds no browser ends the sign-in at once instead of leaving it to time out.
import { spawn } from "node:child_process";

/**
 * Whether a browser opened here can be seen: macOS and Windows always have a display; Linux and the
 * BSDs only with X11 (DISPLAY) or Wayland (WAYLAND_DISPLAY), as over SSH with X forwarding. A
 * headless machine, a container or an SSH session without them has none.
 */
export function hasDisplay(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): boolean {
  if (platform === "darwin" || platform === "win32") return true;
  return Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
}

/** Why no browser can be opened here (a sentence's end), or undefined when one can be tried. */
export function noBrowserHere(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  if (!hasDisplay(env, platform))
    return "this machine has no display (DISPLAY and WAYLAND_DISPLAY are not set: a headless machine, a container, or SSH without X forwarding)";
  if (env.NO_BROWSER) return "NO_BROWSER is set in the agent's environment";
  return undefined;
}

/**
 * The program that opens an https `url` in the user's browser on `platform`, or undefined for
 * anything else: the URL comes from codex and goes to a program that opens any scheme. No shell
 * on any host: on Windows url.dll's handler (through rundll32) gets the address as one argument,
 * where `cmd /c start` would read a `&` in its query as a second command. The address is
 * normalised (spaces and quotes percent-encoded), so it needs no quoting on Windows either.
 */
export function browserCommand(
  url: string,
  platform: NodeJS.Platform = process.platform,
): { file: string; args: string[] } | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== "https:") return undefined;
  if (platform === "darwin") return { file: "open", args: [parsed.href] };
  if (platform === "win32") return { file: "rundll32", args: ["url.dll,FileProtocolHandler", parsed.href] };
  return { file: "xdg-open", args: [parsed.href] };
}

/**
 * Opens an https URL in the user's browser, detached; undefined when the URL is refused. The
 * promise resolves only if the opener fails (it cannot be run, or exits with an error: xdg-open's
 * 3 when it finds no browser), with what happened; an opener that works leaves it pending.
 */
export function openInBrowser(url: string): Promise<string> | undefined {
  const command = browserCommand(url);
  if (!command) return undefined;
  return new Promise((resolve) => {
    const child = spawn(command.file, command.args, {
      detached: true,
      stdio: "ignore",
      windowsHide: true,
      shell: false,
    });
    child.on("error", (err: NodeJS.ErrnoException) =>
      resolve(`${command.file} could not be run: ${err.code ?? err.message}`),
    );
    child.on("exit", (code) => {
      if (code !== null && code !== 0) resolve(`${command.file} exited with code ${code}`);
    });
    child.unref();
  });
}
