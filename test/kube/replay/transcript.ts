import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { KUBE_API_TRANSCRIPTS_DIR } from '../../support/kubeApiFixtures';

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

export function transcriptFiles(): string[] {
  return readdirSync(KUBE_API_TRANSCRIPTS_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort();
}

export function loadTranscript(file: string): Transcript {
  return JSON.parse(readFileSync(path.join(KUBE_API_TRANSCRIPTS_DIR, file), 'utf8')) as Transcript;
}
