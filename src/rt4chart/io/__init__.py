"""Reading input records and results files (JSONL, JSON array, CSV, Parquet; ``-`` for stdin).

- ``formats``: the input formats' table (``FORMATS``) and the readers of a file's rows (``read_rows``,
  ``parse_rows``);
- ``records``: a raw row validated once into a ``Record`` (``validate_record``, ``checked_rows``) or an
  ``InputError`` naming the row and the field; the caller writes an error record for it and goes on;
- ``results``: a results file read back strictly (``read_results``).
"""

from .formats import (FORMATS, InputFormat, Row, decode_bytes, detect_format, extensions, format_names, json_lines,
                      json_objects, open_bytes, parquet_records, parse_rows, read_rows, read_text, writes_over_input)
from .records import (CONTEXT_SEPARATOR, FieldMap, answer_blocks, check_context, check_text, checked_rows,
                      context_text, id_key, join_context, passage_bounds, read_citations, record_ids, validate_record)
from .results import ResultLine, read_results, results_mismatch

__all__ = ["CONTEXT_SEPARATOR", "FORMATS", "FieldMap", "InputFormat", "ResultLine", "Row", "answer_blocks",
           "check_context", "check_text", "checked_rows", "context_text", "decode_bytes", "detect_format",
           "extensions", "format_names", "id_key", "join_context", "json_lines", "json_objects", "open_bytes",
           "parquet_records", "parse_rows", "passage_bounds", "read_citations", "read_results", "read_rows",
           "read_text", "record_ids", "results_mismatch", "validate_record", "writes_over_input"]
