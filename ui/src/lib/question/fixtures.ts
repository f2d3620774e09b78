// Shared test data (imported only by the tests in this folder).
import type { Question } from './types';

export const db: Question = {
  id: 'db',
  question: 'Which database?',
  header: 'Database',
  options: [{ label: 'SQLite', description: 'embedded, zero setup' }, { label: 'Postgres' }],
  multi_select: false,
};

export const extras: Question = {
  id: 'extras',
  question: 'Which extras?',
  options: [{ label: 'Auth' }, { label: 'Cache' }, { label: 'Queue' }],
  multi_select: true,
};

export const name: Question = { id: 'name', question: 'Project name?', multi_select: false };

export const three: Question[] = [db, extras, name];
