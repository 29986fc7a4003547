/**
 * The README and docs/ tell a user to build and load Crondeck's image under a tag: it must be the
 * tag the chart and deploy/ run (the package's version), or a cluster would look for an image that
 * was never loaded and stay in ImagePullBackOff.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const { version } = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
  version: string;
};

const documents = [
  'README.md',
  ...readdirSync(path.join(REPO_ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => path.join('docs', name)),
];

/** Every `ghcr.io/crondeck/crondeck:<tag>` a document names, with its line. */
function imageTags(document: string): { tag: string; line: number }[] {
  const lines = readFileSync(path.join(REPO_ROOT, document), 'utf8').split('\n');
  return lines.flatMap((text, index) =>
    [...text.matchAll(/ghcr\.io\/crondeck\/crondeck:([^\s)`'"|]+)/g)].map((match) => ({
      tag: match[1]!,
      line: index + 1,
    })),
  );
}

describe('image tags in the README and docs/', () => {
  it('are the package version, or the placeholder <version>', () => {
    const wrong = documents.flatMap((document) =>
      imageTags(document)
        .filter(({ tag }) => tag !== version && tag !== '<version>')
        .map(({ tag, line }) => `${document}:${line}: ${tag}`),
    );
    expect(wrong).toEqual([]);
  });

  it('finds the tags it checks', () => {
    expect(imageTags('README.md').map(({ tag }) => tag)).toContain(version);
  });
});
