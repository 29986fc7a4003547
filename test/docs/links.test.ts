/**
 * The README and docs/ link to each other by relative paths and #anchors; moving a section breaks
 * them silently on GitHub. Every such link must name a file that exists and, with an anchor, a
 * heading of that file.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { headingAnchors, relativeLinks } from './markdownLinks';

const REPO_ROOT = path.resolve(__dirname, '..', '..');

const documents = [
  'README.md',
  ...readdirSync(path.join(REPO_ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => path.join('docs', name)),
];

describe('relative links in the README and docs/', () => {
  it.each(documents)('%s: every link names an existing file and heading', (document) => {
    const file = path.join(REPO_ROOT, document);
    const broken: string[] = [];
    for (const { target, line } of relativeLinks(file)) {
      const [targetPath, anchor] = target.split('#');
      const destination = targetPath ? path.resolve(path.dirname(file), targetPath) : file;
      if (!existsSync(destination)) broken.push(`line ${line}: ${target} (no such file)`);
      else if (anchor !== undefined && !headingAnchors(destination).has(anchor)) {
        broken.push(`line ${line}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('finds the links it checks', () => {
    const readmeTargets = relativeLinks(path.join(REPO_ROOT, 'README.md')).map((link) => link.target);
    expect(readmeTargets).toEqual(expect.arrayContaining(['docs/api.md', '#try-it-in-a-minute']));
  });
});
