// Writes the README's sample outside test ("Testing the lab from outside", its one `ts` block)
// to end2end/tests/readme-sample.spec.ts, as written, so the Playwright run runs it
// (scripts/test.sh). The written file is not kept in the repository.
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
const heading = '## Testing the lab from outside';
const start = readme.indexOf(heading);
if (start < 0) {
  console.error(`README.md has no "${heading}" section`);
  process.exit(1);
}
const rest = readme.slice(start + heading.length);
const end = rest.indexOf('\n## ');
const section = end < 0 ? rest : rest.slice(0, end);
const blocks = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
if (blocks.length !== 1) {
  console.error(`the section should hold one ts block, not ${blocks.length}`);
  process.exit(1);
}
const out = path.join(root, 'end2end', 'tests', 'readme-sample.spec.ts');
fs.writeFileSync(out, `// Written from README.md by scripts/readme-sample.mjs: edit the README, not this file.\n${blocks[0]}`);
console.log(`README sample test written to ${path.relative(root, out)}`);
