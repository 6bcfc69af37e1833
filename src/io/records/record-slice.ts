/**
 * A slice of a record's text in SQL: a record is stored in parts
 * (`record_parts`, src/io/storage/record-schema.ts), so what was
 * `substr(text, FROM + 1, LEN)` on its row is this subquery over the parts
 * that overlap [FROM, FROM + LEN), in code points. The transcripts' and the
 * agents' rows that read a record in place use it too.
 */

/**
 * The SQL of the code points [`from`, `from` + `len`) of record `seq` (SQL expressions, evaluated several times);
 * '' when nothing overlaps. Name the outer row's columns by table (`records.seq`): a bare `seq` is the part's.
 */
export function recordSliceSql(seq: string, from: string, len: string): string {
  return `coalesce((SELECT group_concat(substr(p.text, max(1, (${from}) - p.start + 1), (${from}) + (${len}) - max(p.start, (${from}))), '' ORDER BY p.start)
     FROM record_parts p WHERE p.seq = (${seq}) AND p.start < (${from}) + (${len}) AND p.start + p.len > (${from})), '')`;
}
