import { describe, expect, it } from 'vitest';
import { maskSecrets } from '../../../src/core/text/secrets.js';

describe('masking secrets in tool arguments', () => {
  it.each([
    ['{"api_key":"abc123","path":"x"}', '{"api_key":"[hidden]","path":"x"}'],
    ['OPENAI_API_KEY=sk-proj-abcdefghijklmnop1234 node run.js', 'OPENAI_API_KEY=[hidden] node run.js'],
    ['curl -H "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abcdefghijkl"', 'curl -H "Authorization: Bearer [hidden]"'],
    ['aws s3 ls AKIAIOSFODNN7EXAMPLE', 'aws s3 ls [hidden]'],
    ['echo sk-ant-abcdefghijklmnopqrstu | claude', 'echo [hidden] | claude'],
    ['aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'aws_secret_access_key = [hidden]'],
    ['mysql --password=hunter2 -u root', 'mysql --password=[hidden] -u root'],
    ['git clone https://bob:s3cret@example.com/r.git', 'git clone https://bob:[hidden]@example.com/r.git'],
    ['GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789 gh pr list', 'GITHUB_TOKEN=[hidden] gh pr list'],
    ["{'password': 'pa55', 'user': 'me'}", "{'password': [hidden], 'user': 'me'}"],
    ['-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----', '[hidden]'],
  ])('masks %s', (input, output) => {
    expect(maskSecrets(input)).toBe(output);
  });

  it('leaves ordinary arguments alone', () => {
    expect(maskSecrets('{"path":"src/index.ts","line":3}')).toBe('{"path":"src/index.ts","line":3}');
    expect(maskSecrets('ls -la')).toBe('ls -la');
  });
});
