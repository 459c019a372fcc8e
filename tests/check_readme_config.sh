#!/bin/sh
# The README's configuration table must be exactly what osprey-info prints from the one table
# of variables (src/util/config.cc), so that no variable is documented and unused, or used and
# undocumented.   check_readme_config.sh <osprey-info> <README.md>
set -u
want=$(mktemp) have=$(mktemp)
trap 'rm -f "$want" "$have"' EXIT
"$1" --markdown >"$want" || exit 1
sed -n '/<!-- config-table: begin/,/<!-- config-table: end/p' "$2" | sed '1d;$d' >"$have"
if ! cmp -s "$want" "$have"; then
  echo "README.md's configuration table differs from 'osprey-info --markdown':"
  diff "$have" "$want"
  exit 1
fi
echo "README configuration table: $(grep -c '^| `' "$want") variables, as osprey-info prints them"
