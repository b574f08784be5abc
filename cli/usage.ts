/**
 * citty's usage renderer, the one part of citty that `vkr --help` loads. Imported by name from a
 * module of its own (command-line.ts imports this module when it renders usage): a dynamic
 * `import("citty")` keeps every export of citty in the bundle, `runMain` and with it consola's
 * default logger, which `--help` then built for nothing (build/bundle-cli.ts).
 */
export { renderUsage } from "citty";
