// Browser sign-in per host (src/sign-in): which opener runs for Codex's sign-in address on
// Linux, macOS and Windows (never a shell, so nothing in the URL is a command), and where a
// browser is offered at all. The platform is passed in; nothing is opened here.
import { describe, expect, it } from "vitest";
import { browserLikely } from "../../src/sign-in/methods.js";
import { browserCommand, hasDisplay, noBrowserHere } from "../../src/sign-in/browser.js";
import { spokenDuration } from "../../src/sign-in/requests.js";

const URL_WITH_QUERY =
  "https://auth.openai.com/oauth/authorize?client_id=app&redirect_uri=http%3A%2F%2Flocalhost%3A1455&state=a&b";

describe("browserCommand", () => {
  it("Linux: xdg-open; macOS: open; Windows: url.dll's handler through rundll32 (no cmd.exe, so & and ^ are just characters)", () => {
    expect(browserCommand(URL_WITH_QUERY, "linux")).toEqual({ file: "xdg-open", args: [URL_WITH_QUERY] });
    expect(browserCommand(URL_WITH_QUERY, "darwin")).toEqual({ file: "open", args: [URL_WITH_QUERY] });
    expect(browserCommand(URL_WITH_QUERY, "win32")).toEqual({
      file: "rundll32",
      args: ["url.dll,FileProtocolHandler", URL_WITH_QUERY],
    });
  });

  it("the address goes out as one normalised argument: spaces and quotes percent-encoded, so Windows needs no quoting either", () => {
    const cmd = browserCommand('https://example.com/a b?q="x"&y=^', "win32");
    expect(cmd?.args[1]).toBe("https://example.com/a%20b?q=%22x%22&y=^");
    expect(cmd?.args[1]).not.toMatch(/[\s"]/);
  });

  it("anything but https is refused on every host", () => {
    for (const platform of ["linux", "darwin", "win32"] as const) {
      expect(browserCommand("http://example.com", platform)).toBeUndefined();
      expect(browserCommand("file:///C:/Windows/System32/calc.exe", platform)).toBeUndefined();
      expect(browserCommand("javascript:alert(1)", platform)).toBeUndefined();
      expect(browserCommand("not a url", platform)).toBeUndefined();
    }
  });
});

describe("browserLikely", () => {
  it("macOS and Windows have a browser unless over SSH or NO_BROWSER; Linux needs a display", () => {
    for (const platform of ["darwin", "win32"] as const) {
      expect(browserLikely({}, platform)).toBe(true);
      expect(browserLikely({ SSH_CONNECTION: "1.2.3.4 5 6.7.8.9 22" }, platform)).toBe(false);
      expect(browserLikely({ NO_BROWSER: "1" }, platform)).toBe(false);
    }
    expect(browserLikely({}, "linux")).toBe(false);
    expect(browserLikely({ WAYLAND_DISPLAY: "wayland-0" }, "linux")).toBe(true);
    expect(browserLikely({ DISPLAY: ":0", SSH_TTY: "/dev/pts/1" }, "linux")).toBe(false);
    expect(browserLikely({}, "freebsd")).toBe(false);
    expect(browserLikely({ DISPLAY: ":0" }, "openbsd")).toBe(true);
  });
});

describe("hasDisplay / noBrowserHere (a browser sign-in asked for anyway is refused at once where nobody could finish it)", () => {
  it("macOS and Windows have a display; Linux and the BSDs need X11 or Wayland, over SSH too (X forwarding)", () => {
    for (const platform of ["darwin", "win32"] as const) expect(hasDisplay({}, platform)).toBe(true);
    for (const platform of ["linux", "freebsd", "openbsd"] as const) {
      expect(hasDisplay({}, platform)).toBe(false);
      expect(hasDisplay({ DISPLAY: "", WAYLAND_DISPLAY: "" }, platform)).toBe(false);
      expect(hasDisplay({ SSH_CONNECTION: "1.2.3.4 5 6.7.8.9 22" }, platform)).toBe(false);
      expect(hasDisplay({ DISPLAY: "localhost:10.0", SSH_CONNECTION: "1.2.3.4 5 6.7.8.9 22" }, platform)).toBe(true);
      expect(hasDisplay({ WAYLAND_DISPLAY: "wayland-0" }, platform)).toBe(true);
    }
  });
  it("says why: no display, or NO_BROWSER; nothing where a browser can be tried", () => {
    expect(noBrowserHere({}, "linux")).toMatch(/no display/);
    expect(noBrowserHere({ DISPLAY: ":0", NO_BROWSER: "1" }, "linux")).toMatch(/NO_BROWSER/);
    expect(noBrowserHere({ DISPLAY: ":0" }, "linux")).toBeUndefined();
    expect(noBrowserHere({}, "darwin")).toBeUndefined();
  });
});

describe("spokenDuration (the sign-in's time limit in its error)", () => {
  it("minutes when whole, else seconds", () => {
    expect(spokenDuration(600_000)).toBe("10 minutes");
    expect(spokenDuration(60_000)).toBe("1 minute");
    expect(spokenDuration(1500)).toBe("1.5 s");
    expect(spokenDuration(90_000)).toBe("90 s");
  });
});
