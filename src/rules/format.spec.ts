import { describe, expect, it } from 'vitest';
import { excerpt } from './format.js';

describe('excerpt', () => {
  it('reads an HTML page as its title, or its text without markup', () => {
    expect(excerpt('HTTP 503: <html><head><title>503 Service Unavailable</title></head><body><h1>nginx</h1></body></html>')).toBe('HTTP 503: 503 Service Unavailable');
    expect(excerpt('HTTP 502: <html><body><h1>Bad\tGateway</h1><p>cloudflare</p></body></html>')).toBe('HTTP 502: Bad Gateway cloudflare');
    expect(excerpt('HTTP 502: <html><body><h1>Bad Gateway</h1><p cla')).toBe('HTTP 502: Bad Gateway');
  });

  it('cuts between words, a token longer than the excerpt left out whole, and shows no control character', () => {
    expect(excerpt(`a\u001b[2J\u0007 b ${'word '.repeat(100)}`, 20)).toBe('a [2J b word word …');
    expect(excerpt(`key=${'k'.repeat(300)}`, 20)).toBe('…');
    expect(excerpt('HTTP 503: {"message":"upstream timed out after 30 s","statusCode":503}')).toBe('HTTP 503: upstream timed out after 30 s');
    expect(excerpt('HTTP 503: {"message":"upstream timed out after 30 s and sk-Secre')).toBe('HTTP 503: upstream timed out after 30 s and …');
  });
});
