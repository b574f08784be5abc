/** The runtime fixture content built once per test file (data, browse site, llms.txt), via the real build CLI. */
import { buildContentTo } from "../helpers/build-fixture.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";

let dist: string | undefined;

export function peopleFixtureDist(): string {
  dist ??= buildContentTo(writeFixtureContent());
  return dist;
}
