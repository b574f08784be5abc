#!/usr/bin/env node
// The `vkr` bin: runs the TypeScript CLI through tsx's loader (the project ships TypeScript sources).
import { register } from "tsx/esm/api";

register();
await import("../cli/main.ts");
