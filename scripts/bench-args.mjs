// The benchmarks' command line: `--name value` options and `--name` switches.
const args = process.argv.slice(2);

/** The value given after `name` (`--duration 10` → '10'), or undefined. */
export function option(name) {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

/** Whether the switch `name` (`--write`) was given. */
export function flag(name) {
  return args.includes(name);
}
