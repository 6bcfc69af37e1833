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

  it.each([
    ['mysql -u root -pS5hunter2 shop', 'mysql -u root -p[hidden] shop'],
    ["mysqldump -h db -p'pa ss' shop > dump.sql", 'mysqldump -h db -p[hidden] shop > dump.sql'],
    ['sshpass -p hunter2 ssh me@host', 'sshpass -p [hidden] ssh me@host'],
    ['curl -u sk_live_4eC39HqLyjWDarjtT1zdp7dc: https://api.stripe.com/v1/charges', 'curl -u [hidden]: https://api.stripe.com/v1/charges'],
    ['STRIPE=rk_test_51H8abcdEFGH1234 node pay.js', 'STRIPE=[hidden] node pay.js'],
    ['aws configure set aws_secret_access_key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'aws configure set aws_secret_access_key [hidden]'],
    ['aws configure set default.aws_session_token FwoGZXIvYXdzEJr', 'aws configure set default.aws_session_token [hidden]'],
    ['./deploy AKIAIOSFODNN7EXAMPLE wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY us-east-1', './deploy [hidden] [hidden] us-east-1'],
    ['creds("AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")', 'creds("[hidden]", "[hidden]")'],
    ['OPENAI_API_KEY=sk-proj-abcdefghijklmnop1234\nHOME=/home/me', 'OPENAI_API_KEY=[hidden]\nHOME=/home/me'],
    ['Authorization: Bearer sk-proj-abcdefghijklmnop1234', 'Authorization: Bearer [hidden]'],
  ])('masks the shape the red team found: %s', (input, output) => {
    expect(maskSecrets(input)).toBe(output);
  });

  it.each([
    'the sk- prefix marks an OpenAI key; sk_live_ marks a Stripe one',
    'a risk-assessment-for-the-whole-team document',
    'mkdir -p build/out && git log -p -3 && node -p 1+1 && psql -p 5432 && rsync -pavz a b',
    'mysql -u root -p shop',
    'mysql -P 3306 -u root -p',
    'git checkout 3f786850e387550fdab836ed7e6dc881de23001b',
    'the old key was rotated at 3f786850e387550fdab836ed7e6dc881de23001b',
    'a 40-character word: ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmn',
    '{"input_tokens":24763,"max_tokens":4096,"tokenizer":"cl100k"}',
    'usage: 120 output_tokens, token_count=99',
  ])('leaves a near miss alone: %s', (text) => {
    expect(maskSecrets(text)).toBe(text);
  });

  it('masks the access key id but not the git SHA after it', () => {
    expect(maskSecrets('AKIAIOSFODNN7EXAMPLE at 3f786850e387550fdab836ed7e6dc881de23001b')).toBe('[hidden] at 3f786850e387550fdab836ed7e6dc881de23001b');
  });

  it('masks already-masked text the same again', () => {
    const once = maskSecrets('mysql -pS5hunter2; token=abc; Bearer abcdefghijk; aws configure set aws_secret_access_key X');
    expect(maskSecrets(once)).toBe(once);
  });
});
