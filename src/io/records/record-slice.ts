/**
 * A slice of a record's text in SQL: the record is stored in parts, so `substr(text, FROM + 1, LEN)` becomes a
 * subquery over the parts overlapping [FROM, FROM + LEN), in code points; the rows that read a record in place use it.
 */

/**
 * The SQL of the code points [`from`, `from` + `len`) of record `seq` (SQL expressions, evaluated several times);
 * '' when nothing overlaps. Name the outer row's columns by table (`records.seq`): a bare `seq` is the part's.
 */
export function recordSliceSql(seq: string, from: string, len: string): string {
  return `coalesce((SELECT group_concat(substr(p.text, max(1, (${from}) - p.start + 1), (${from}) + (${len}) - max(p.start, (${from}))), '' ORDER BY p.start)
     FROM record_parts p WHERE p.seq = (${seq}) AND p.start < (${from}) + (${len}) AND p.start + p.len > (${from})), '')`;
}
