// Child process for the last-resort test: installs the serve mode's fault handler, then fails
// where nobody catches (a throw in a timer, a rejection nobody awaits) and says whether it lived on.
import { pino } from "pino";
import { keepServingOnFault } from "../../src/core/transport/last-resort.js";

keepServingOnFault(pino({ level: "info" }, pino.destination({ fd: 2, sync: true })));
setTimeout(() => {
  throw new Error("a throw in a timer nobody catches");
}, 10);
setTimeout(() => void Promise.reject(new Error("a rejection nobody handles")), 20);
setTimeout(() => process.stdout.write("still serving\n"), 60);
