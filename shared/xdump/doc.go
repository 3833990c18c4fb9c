// Package xdump describes every Twinframe table by metadata and dumps and loads tables
// in the xdump language, machine-readable and human-readable. One generic writer and
// one generic parser serve all tables; a table only registers its schema and row
// accessors once, in a Registry.
//
// # Design note
//
// Metadata is itself a set of tables, so it dumps like data. The table of tables
// ("table": uid, name) lists every table; `xdump meta T` lists T's fields (name, type,
// flags, len, table), and the meta table describes itself (`xdump meta meta`), which
// ends the recursion. Types (d integer, g float, s string, c character array) and flags
// (deity, bits, hidden) are symbols in the symbol tables meta-type and meta-flags, and a
// field's table is the uid of the table it refers to (-1: none; a value -1 in such a
// field is a null key). A client hard-codes names only, never numbers.
//
// Machine-readable dumps follow the seed's grammar exactly:
//
//	XDUMP [meta ]NAME TIMESTAMP
//	field field ...        one record per line, fields separated by one space
//	/N                     N records
//
// Integers print as %d, floats in the shortest form that reads back exactly, strings
// in double quotes with bytes outside 33..126, '"' and '\' as \ooo octal escapes, and a
// null string as nil. An array field of len n dumps as n fields; a character array as
// one string. A dump for a player omits Deity fields from meta and data and writes -1
// for Hidden fields; a deity sees everything.
//
// The human-readable dialect (config files) differs: free white space, # comments,
// `config NAME`, a column header of field names (unique prefixes allowed, arrays as
// name(index)), records, `/config`. A table may be split vertically into parts whose
// headers end in "..."; parts have the same rows, matched by position, and fields
// repeated in several parts (the key, normally) must agree. Symbols may be given by
// name (unique prefixes allowed), symbol sets as (a b), a null string as nil.
//
// Reading (Registry.Parse) checks syntax and types against the metadata; loading
// (Registry.Load) also checks what a table's schema demands of its rows (key order,
// row counts, ranges, const fields) and then replaces the rows through the table's
// accessors. Errors are *ParseError values naming file, line and column. Like
// Empire's, the parser accepts human-readable field syntax inside a machine-readable
// table. WriteConfig writes the human-readable dialect; a machine dump for Load is
// written with Options.Export (no DumpOnly fields). Verify checks every reference by
// metadata.
//
// The registry is a value (no package state, no init-time registration). Dumps iterate
// tables by uid and rows by index, never over a map, so output is deterministic.
package xdump
