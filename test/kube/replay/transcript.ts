import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** One recorded request/response (see kube-api README "Transcript format"). */
export interface Exchange {
  i: number;
  step: string;
  request: {
    method: string;
    path: string;
    headers: Record<string, string>;
    body?: unknown;
    rawBody?: string;
  };
  response: {
    status: number;
    headers: Record<string, unknown>;
    body?: unknown;
    events?: { type: string; object: Record<string, unknown> }[];
    end?: string;
  };
  watch?: boolean;
  openDuring?: number[];
  polled?: string;
  auth?: string;
  client?: string;
  note?: string;
  bodyFiltered?: string;
  unordered?: string;
  nondeterministic?: string;
}

export interface Transcript {
  scenario: string;
  title: string;
  notes?: string[];
  exchanges: Exchange[];
  continueTokens?: Record<string, unknown>;
}

const KUBE_API_DIR = path.resolve(__dirname, '../../../../shared/kube-api');

export function transcriptFiles(): string[] {
  return readdirSync(path.join(KUBE_API_DIR, 'transcripts'))
    .filter((f) => f.endsWith('.json'))
    .sort();
}

export function loadTranscript(file: string): Transcript {
  return JSON.parse(readFileSync(path.join(KUBE_API_DIR, 'transcripts', file), 'utf8')) as Transcript;
}
