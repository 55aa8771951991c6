"""Drafting a schema from the data, for a person to review: differentially private, or openly.

This module sits above the privacy kernel (ranked with the mechanisms): it parses the raw columns and
hands them to :class:`~dprelease.privacy.column_reader.PrivateColumnReader`, the only code that counts
them, which pays first. Everything it decides from the reader's answers is post-processing.

Two modes, and never a silent one:

- **private** (``epsilon=``, optionally ``delta=``): a quarter of epsilon buys each column, in equal parts, a
  noisy profile (how many values look NULL, boolean, integer, decimal, date, date-time or text, or like a number
  written with thousands separators or signs (1,234.50, $99, 12%) or a decimal comma (3,5), or a date written
  another way (31.03.2022, 2022/03/31, 31/03/2022, 03/31/2022, with or without a time of day)), from which the kind,
  the way numbers and dates are written and the NULL bucket are chosen. The other three quarters are split equally over the
  columns whose kind needs more (a boolean needs nothing more, nor text when delta = 0): for numbers, bounds from a noisy
  histogram over public cells (0, +-1..9 10^e, and for integers a year each from 1900 to 2099 inside the wide cells
  1000-1999 and 2000-2999, which stand out by their sum and are cut inward where they look empty; widened by runs of
  a decade's cells whose noisy sum stands out; refined inside the outer cells by noisy histograms of their tenths,
  :func:`_refined`)
  and then bin edges (quantiles 1/b .. (b-1)/b) by the
  exponential mechanism over public candidates inside the bounds; for dates, bounds from a noisy histogram
  over years (the twentieth and twenty-first centuries wide cells as an integer's; a date written another way first
  spends a quarter of its part on a noisy histogram of its times of day) (for both, where no noisy cell clears the threshold the bounds are left null, refused at every
  use until the user declares them, and no bin edges are bought); for text, categories by a stability
  histogram (needs delta > 0; delta is split equally over the text columns), and none where ``categories``
  declares them (their profile is then a histogram over them: :func:`_declared_profile`). That split reads the
  profiles' noisy outputs, so the budgets are chosen adaptively; their sum never exceeds (epsilon, delta), which basic
  composition's privacy filter allows (Rogers, Roth, Ullman & Vadhan 2016). The spend is the schema's own
  exact ledger (:func:`draft_charges`), to be added to a release's.
- **non-private** (``non_private=True``): the same plan on exact statistics; the schema says it is not
  public and must be replaced by public knowledge before a release.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import numpy as np

from dprelease.engines.files import resolve_files, several_files
from dprelease.errors import InputError, InputTypeError, warn_user
from dprelease.privacy.accountant import Charge, PrivacyAccountant
from dprelease.privacy.column_reader import PrivateColumnReader
from dprelease.privacy.contributions import (ROWS_BUCKET_EDGES, bounded_rows, check_privacy_id, check_rows_per_person,
                                              person_ledger, record_budget, rows_kept_estimate,
                                              rows_per_person_histogram)
from dprelease.privacy.key_selection import selection_threshold
from dprelease.privacy.noise import exact
from dprelease.privacy.rng import make_rng
from dprelease.schema.binned import (PRECISIONS, DateColumn, DatetimeColumn, IntegerColumn, NumericColumn,
                                     UndecidedColumn, number_text)
from dprelease.schema.columns import (FALSE_WORDS, TRUE_WORDS, BooleanColumn, CategoricalColumn, Column,
                                      on_decimal_grid)
from dprelease.schema.encode import number_texts, read_table
from dprelease.schema.parse import (BOOLEAN_CLASSES, BOOLEAN_SPELLINGS, CLASSES, CLOCKLESS_FORMATS, C_COMMA,
                                    C_COMPACT_DATE, C_DATE, C_DATETIME, C_DAY_FIRST_DATE, C_DECIMAL, C_DECIMAL_1,
                                    C_DECIMAL_2, C_GROUPED, C_INTEGER, C_LEADING_ZERO, C_LOCAL_YESNO, C_MISSING_WORD,
                                    C_MONTH_FIRST_DATE, C_NULL, C_SLASH_DATE, C_TEXT, C_YEAR_NUMBER, DATETIME_CLASSES,
                                    DATE_FORMAT_CLASSES, DECIMAL_CLASSES, DRAFT_SYMBOLS, FactorColumn,
                                    INTEGER_CLASSES, LOCAL_FALSE_WORDS, LOCAL_SPELLINGS, LOCAL_TRUE_WORDS,
                                    MINUTE_CLASSES, MISSING_WORDS, SPACED_CLASSES, TIME_VARIANTS, TWO_DIGIT_PIVOT,
                                    TypedColumn, ZONED_CLASSES, classify, datetimes_to_int, float_places,
                                    format_problem, parse_floats, parse_formatted_times, parse_times, texts,
                                    time_of_day, time_variants, typed_classes)
from dprelease.schema.schema import NOT_PUBLIC, Draft, Schema
from dprelease.schema.tables import Table, check_header_names, concat_tables, person_index, take_rows
from dprelease.validation import check_delta, check_epsilon, check_positive_int, warn_if_weak

DRAFT_KINDS = ("categorical", "boolean", "integer", "numeric", "date", "datetime")
#: A per-person draft's share of epsilon for the persons' numbers of rows (``rows_per_person_histogram``): at eps 0.5
#: a Laplace scale of 40 persons a bucket, enough to see where most persons' rows end on a table of thousands.
ROWS_HISTOGRAM_SHARE = Fraction(1, 10)
#: A kind is chosen when at least this share of the (noisy) non-NULL values look like it.
KIND_SHARE = 0.9
#: The share of a column's whole numbers in 1900-2099 from which its bounds cells there are years
#: (:attr:`_Profiled.in_years`): birth and policy years hold nearly all of theirs there, a year column with blanks
#: written 0 most; durations, rents and integers 1000-1999 a tenth or less.
YEARS_SHARE = 0.5
#: An integer column where a few values hold a third of the rows (:data:`SPIKY_SHARE`, the few-values test's keys)
#: and whose bounds hold at most this many times ``bins`` integers is drafted one bin per integer: a bin of two
#: decodes half of each value as its neighbour (instalments of 1, 3, 6 or 12 months came out 2, 7 and 11 in a
#: quarter of the rows, from bins 2-3, 6-7 and 11-12), and a bin of one is exact. A column spread evenly keeps
#: ``bins`` (fewer cells).
ONE_BIN_EACH = 2
#: The share of a number column's rows its few values kept by the few-values test must hold for ONE_BIN_EACH: a
#: value of a column spread evenly over 11-20 integers holds a tenth or so, under the keys' threshold.
SPIKY_SHARE = 1 / 3
#: A number column is drafted as its few values (:func:`_few_values`) when they hold at least this share of its
#: (noisy) non-NULL values: the rest go to ``other``, and a number there is lost, so it is far stricter than the
#: kind's: revenue that is 0.0 on 95 % of rows and amounts on the rest stays numeric.
FEW_VALUES_SHARE = 0.99
#: The deviations of their summed noise by which the kept values' noisy counts may fall short of that share and still
#: be taken for it: the share is a one-sided test that more than 1 % lies elsewhere (session 65: a fee of three values
#: on 20,000 rows was drafted as a number on about one seed in twelve, its counts' noise 342 rows short).
FEW_VALUES_DEVIATIONS = 2.0
#: The share of a number column's rows that its few kept values must hold for the draft to name it as a likely code
#: (:func:`_few_values`), where they hold less than nearly all.
MOSTLY_FEW_SHARE = 0.5
#: Probability that any empty cell passes the private bounds' threshold.
FALSE_CELL = 0.001
#: Column names that read as identifiers (``id``, ``trip_id``, ``customer-uuid``, ``customerId``, ``order_no``,
#: ``respondent``, pandas' saved index ``Unnamed: 0``): the draft names them, from the header alone (public), since it
#: cannot tell a running number from a spread column without reading more.
IDENTIFIER_NAMES = (re.compile(r"(?i)^(id|uuid|guid|respondent|participant)$"
                               r"|[_\s.-](id|uuid|guid|no|num|number|key)$|^unnamed: \d+$"),
                    re.compile(r"[a-z0-9](Id|ID)$"))

#: How a column of codes written to a width (:func:`zero_padded`, :data:`POSTCODE_NAMES`) was drafted, for its note:
#: as a few codes, as integers with digits, or with its bounds left to declare.
_ZERO_PADDED_NOTES = {
    "codes": ", and a few of their codes hold most of their rows: drafted as those codes (categories, written as the "
             "table writes them); rarer codes go to other",
    "digits": ': drafted as integers over every code of as many digits as their drafted high bound (0..99999 for '
              '02134), in equal bins, written back zero-padded ("digits"); if such a column is a code whose values '
              'matter one by one (not by range), declare "type": "categorical" with its "values" from public '
              "knowledge",
    "undecided digits": ': where you declare their bounds, add "digits" (5 for 02134) so that synthetic values are '
                        "written zero-padded"}
#: Headers that name a postcode (public): a whole-number column so named is drafted as codes written to a width
#: (:func:`zero_padded`) even where its codes written with a leading zero are too few to stand out of the profile's
#: noise (US ZIP codes 01001-09999 are 8 % of a national table: 960 of 12,000 rows, under the 884 a class asked alone
#: needs at eps 0.5 over 8 columns, on about half the drafts).
POSTCODE_NAMES = re.compile(r"(?i)zip|post_?code|postal|plz|postleitzahl|code_?postal")


def draft_schema(data: object, *, epsilon: float | None = None, delta: float = 0.0, non_private: bool = False,
                 columns: Sequence[str] | None = None, types: Mapping[str, str] | None = None,
                 formats: Mapping[str, str] | None = None, bins: int = 10,
                 max_categories: int = 100, null_tokens: Sequence[str] = ("",), seed: int | None = None,
                 delimiter: str | None = None, header: bool | str = "auto", skip_rows: int = 0,
                 show_values: bool = False, privacy_id: str | None = None,
                 rows_per_person: int | None = None,
                 categories: Mapping[str, Sequence[object]] | None = None) -> Schema:
    """A draft schema of ``data`` (CSV, Parquet, DataFrame): private with ``epsilon``, or ``non_private``.

    Public checks run first: a mistake raises before the data is read or anything is spent. ``formats`` names the
    date columns written another way than ISO, each with its strptime ``format`` (docs/schema.md): such a column is
    a date (or the datetime ``types`` says), its values read by the format, and the format is kept in the draft.

    ``privacy_id`` and ``rows_per_person`` (k) draft per person, for a person-level release
    (:func:`dprelease.api.synthesize_table` with the same privacy id): the id column is left out of the schema, each
    person keeps at most k rows, drawn at random, and the draft runs at (epsilon / k, delta') so that by group privacy
    (:mod:`dprelease.privacy.contributions`) every charge, converted, and their sum stay within (epsilon, delta) for
    one person added or removed; the ledger records both.

    ``categories`` declares text columns' categories from public knowledge (a questionnaire's levels, the regions of
    a country), ``{"education": ["HS", "BA", "MA"]}``: such a column is drafted as exactly those categories, and
    spends nothing on selecting them; its profile is a noisy histogram over them, the blanks and the rest, which
    finds its NULL bucket, and its ``other`` bucket only where the rows outside the categories stand out of the
    noise (:func:`_declared_profile`). Its part of epsilon goes to the other columns.
    """
    if non_private == (epsilon is not None):
        raise InputError("drafting a schema needs exactly one mode: epsilon=... (differentially private) or "
                         "non_private=True (reads the data openly; the result is not public)")
    if not isinstance(non_private, bool):
        raise InputTypeError(f"non_private must be True or False, got {non_private!r}")
    if epsilon is not None:
        check_epsilon(epsilon, "epsilon")
    check_delta(delta)
    check_positive_int(bins, "bins")
    check_positive_int(max_categories, "max_categories")
    types = dict(types or {})
    for name, kind in types.items():
        if kind not in DRAFT_KINDS:
            raise InputError(f"type of column {name!r} must be one of {list(DRAFT_KINDS)}, got {kind!r}")
    formats = dict(formats or {})
    for name, text_format in formats.items():
        problem = format_problem(text_format)
        if problem is not None:
            raise InputError(f"column {name!r}: {problem}")
        if types.setdefault(name, "datetime" if time_of_day(text_format) else "date") not in ("date", "datetime"):
            raise InputError(f"column {name!r} has a date format but the type {types[name]!r}: a format is for date "
                             "and datetime columns")
    declared_values = _declared_categories(categories, types, formats)
    probe = Schema((CategoricalColumn(name="_", values=(), other=True),), tuple(null_tokens))
    if columns is not None and (isinstance(columns, str) or len(set(columns)) != len(columns)):
        raise InputError(f"columns must be a list of distinct names, got {columns!r}")
    if (privacy_id is None) != (rows_per_person is None):
        raise InputError("privacy_id (--privacy-id) and rows_per_person (--rows-per-person) draft per person "
                         "together: give both or neither")
    if privacy_id is not None:
        check_privacy_id(privacy_id, tuple(columns or ()) + tuple(types))
        check_rows_per_person(rows_per_person)
        if epsilon is None:
            raise InputError("privacy_id drafts per person with differential privacy: give epsilon (--epsilon); "
                             "a non-private draft leaves a column out with columns (--columns)")
    rng = make_rng(seed) if epsilon is not None else None
    if epsilon is not None:
        warn_if_weak(epsilon)
    wanted = None if columns is None else list(columns) + ([] if privacy_id is None else [privacy_id])
    table = read_source(data, wanted, delimiter=delimiter, header=header, skip_rows=skip_rows,
                        show_values=show_values)
    if table.missing:
        raise InputError(f"{table.source} lacks column(s) {list(table.missing)}")
    person = None
    if privacy_id is not None:  # BOUND each person's rows (the privacy kernel), then draft per record at the share
        if privacy_id not in table.columns:
            raise InputError(f"{table.source} has no privacy_id column {privacy_id!r}")
        persons = person_index(table.columns[privacy_id])
        # how many rows the persons have (a share of epsilon, per person), for the note that helps choose k
        person_accountant = PrivacyAccountant(epsilon=exact(epsilon) * ROWS_HISTOGRAM_SHARE)
        noisy_persons = rows_per_person_histogram(
            persons, reader=PrivateColumnReader(accountant=person_accountant, rng=rng),
            epsilon=exact(epsilon) * ROWS_HISTOGRAM_SHARE)
        kept = bounded_rows(persons, rows_per_person=rows_per_person, rng=rng)
        table = take_rows(replace(table, columns={k: v for k, v in table.columns.items() if k != privacy_id}), kept)
        person = {"privacy_id": privacy_id, "rows_per_person": rows_per_person, "epsilon": epsilon, "delta": delta,
                  "rows_histogram": {"bucket_lows": list(ROWS_BUCKET_EDGES),
                                     "noisy_persons": [int(c) for c in noisy_persons],
                                     "epsilon": float(person_accountant.spent_epsilon), "privacy_id": privacy_id}}
        rest = float(exact(epsilon) - person_accountant.spent_epsilon)
        epsilon, delta = record_budget(epsilon=rest, delta=delta, rows_per_person=rows_per_person)
    if columns is None and header is not True:  # header=True: the caller declares the first row names
        # The table's own column names are published in the schema: refuse names that look like a record (a
        # CSV without a header row), before anything is read or spent. The CSV reader checked its header already.
        check_header_names(list(table.columns), table.source)
    unknown = sorted(set(types) - set(table.columns))
    if unknown:
        raise InputError(f"{'types or formats' if formats else 'types'} name column(s) {unknown} that the data does "
                         "not have")
    unknown = sorted(set(declared_values) - set(table.columns))
    if unknown:
        raise InputError(f"categories name column(s) {unknown} that the data does not have")
    typed = sorted(name for name in declared_values if isinstance(table.columns[name], TypedColumn))
    if typed:  # public: the dtypes
        raise InputError(f"categories are declared for text columns; column(s) {typed} hold typed numbers, booleans "
                         "or dates: declare their kind (types) instead")
    if table.n == 0:
        raise InputError(f"{table.source} has no rows")
    names = list(table.columns)
    if epsilon is None:
        reader, profile_share = _OpenReader(), Fraction(0)
    else:
        accountant = PrivacyAccountant(epsilon=epsilon, delta=delta)
        reader = PrivateColumnReader(accountant=accountant, rng=rng)
        profile_share = exact(epsilon) / len(names) / 4
    profiles = [_declared_profile(name, table.columns[name], reader, probe.null_tokens, declared_values[name],
                                  profile_share) if name in declared_values else
                _profile(name, table.columns[name], reader, probe.null_tokens, types.get(name), profile_share,
                         formats.get(name)) for name in names]
    # The rest, split over the columns that use it: a choice made from the profiles' noisy outputs (a filter).
    private = epsilon is not None
    users = [p for p in profiles if p.needs_budget(delta)] if private else []
    # delta selects keys: a text column's categories, and a number column's few values (:func:`_few_values`)
    key_columns = [p for p in users if p.kind == "categorical" or p.tests_few_values(private=True, delta=delta)]
    main = (exact(epsilon) - profile_share * len(names)) / len(users) if users else Fraction(0)
    delta_share = exact(delta) / len(key_columns) if key_columns and delta > 0 else Fraction(0)
    notes: list[str] = []
    if person is not None:  # first: it is what a user needs to choose the run's --rows-per-person
        notes.append(rows_note(person["rows_histogram"], person["rows_per_person"]))
    if users:
        notes.append(_visibility_note(epsilon, main, delta_share, len(users), len(names),
                                      bins if any(p.kind != "categorical" for p in key_columns) else None))
    durations = [name for name in names if getattr(table.columns[name], "duration", False)]
    if durations:
        notes.append(f"column(s) {durations} hold durations, read as seconds: their bounds, edges and synthetic "
                     "values are seconds (Synthesizer.sample gives a DataFrame's back as durations)")
    guessed = [p.name for p in profiles if not p.kind_seen]
    if private and guessed:
        notes.append(f"column(s) {guessed}: no kind of value stood out of the profile's noise (Laplace scale "
                     f"{_scale(profile_share):,.0f} rows at epsilon={float(profile_share):.3g} each), so their kinds "
                     "are guesses and their drafts say little: the table may be too small for this epsilon; declare "
                     "their kinds (--types), or draft with a larger epsilon")
    no_blanks = [p.name for p in profiles if not p.has_null and not p.never_null]
    if private and no_blanks:
        notes.append(_blanks_note(no_blanks, profile_share))
    bucketed = [p.name for p in profiles if p.has_null]
    if private and bucketed:
        notes.append(_spurious_blanks_note(bucketed, profile_share))
    # what the columns found, one note for all the columns alike (a wall of per-column paragraphs buries the one
    # that matters): bounds at a wide cell's edge (:func:`_outer_cells_note`), number columns drafted as their few
    # values (:func:`_few_values`), text columns that delta = 0 cannot give categories, numbers written with signs
    # or a decimal comma (by the options declared), columns left without bounds (by the threshold they missed)
    found: dict[str, Any] = {"outer": [], "few values": [], "no keys": [], "written": {}, "no bounds": {},
                             "dates": {}, "zero apart": [], "wide cut": [], "wide edge": [], "mostly few": [],
                             "digits": [], "undecided digits": [], "codes": [],
                             "declared categories": []}
    drafted = tuple(_finish(p, reader, main, delta_share, bins, max_categories, notes, found) for p in profiles)
    drafted = tuple(_reading_missing_words(column, probe.null_tokens) if profile.missing_words else column
                    for column, profile in zip(drafted, profiles))
    if found["no keys"]:
        notes.append(f"column(s) {found['no keys']}: categories cannot be selected privately with delta = 0; the "
                     "draft lists none (every value goes to other): give --delta or declare them")
    for (words, options), written_names in found["written"].items():
        back = ('and writes them back with the sign most of them carry, where it stood out of the noise ("prefix" or '
                '"suffix")' if '"prefix"' in options or '"suffix"' in options else
                'and to write the numbers back with their sign, add "prefix": "$" (or "suffix": "%", one of the '
                "symbols)")
        notes.append(f"column(s) {written_names} write their numbers {words}: the draft declares {options}, and "
                     "reads a number with or without any of these symbols; remove those the table never writes, "
                     f"{back}")
    for missed, undecided in found["no bounds"].items():
        notes.append(f"column(s) {undecided}: no cell of their bounds histograms stood out of the noise (a cell "
                     f"needs {missed}), so the draft does not guess their bounds: they are left null, and the schema "
                     "is refused until you declare them from public knowledge (or draft with a larger epsilon)")
    for note in _found_dates_notes(found["dates"], profiles):
        notes.append(note)
    if found["zero apart"]:
        notes.append(f"column(s) {found['zero apart']}: a cell at 0 stood out of the noise far from the column's "
                     "other values (farther than they spread), so the bounds reach 0 and synthetic values fill the gap; "
                     'if 0 there means missing (a latitude of 0.0), add "0" and "0.0" to that column\'s "null_tokens" '
                     '(with "null": true) and declare its bounds')
    if found["few values"]:
        notes.append(_few_values_note(found["few values"], bins))
    if found["declared categories"]:
        notes.append(f"column(s) {found['declared categories']} drafted as the categories you declared, at no cost "
                     "beyond their profile, which found their blanks; each has an other bucket only where its rows "
                     "outside those categories stood out of the profile's noise (else synth refuses such a value, "
                     'naming the column: add "other": true)')
    from_dtypes = [p.name for p, c in zip(profiles, drafted) if getattr(p.raw, "dtype_categories", False)
                   and p.categories is None and isinstance(c, CategoricalColumn)]
    if private and from_dtypes:  # public: the dtypes, and the kind drafted
        notes.append(f"column(s) {from_dtypes} have a categorical dtype: its categories were selected privately like "
                     "any text (a dtype built from the data lists the data's own values), so rare ones may go to "
                     "other; where they are public knowledge (a questionnaire's levels), declare them: "
                     f"categories={{{from_dtypes[0]!r}: list(frame[{from_dtypes[0]!r}].cat.categories)}}, or "
                     "--categories COLUMN=A,B,C, and they cost nothing to select")
    for key, drafted_as in _ZERO_PADDED_NOTES.items():
        if found[key]:
            notes.append(f"column(s) {found[key]} write whole numbers with a leading zero (02134) beside whole "
                         f"numbers without one, or are named as postcodes{drafted_as}")
    if found["mostly few"]:
        notes.append(f"column(s) {', '.join(found['mostly few'])}: a few values hold most of their rows but not "
                     "nearly all that the draft could see, so they are drafted as ranges, and a synthetic value may "
                     "fall between them (an HTTP status of 217); if such a column is a code (statuses, sizes, "
                     'ratings), declare it "type": "categorical" with its "values" from public knowledge')
    if found["outer"]:
        notes.append(_outer_cells_note(found["outer"]))
    if private and found["wide cut"]:
        notes.append(f"column(s) {', '.join(found['wide cut'])}: the bounds were cut inward from the edge of a "
                     "wide cell of years (an integer's 1000-1999 or 2000-2999, a date's century) where its years "
                     "looked empty, so a thin tail of years beyond them may be clipped (a cut may hold 0.5 % of the "
                     "rows and half a deviation of its noise: up to about the rows given); declare bounds from public "
                     "knowledge where you have them (birth years 1900..2010), or draft with a larger epsilon")
    if private and found["wide edge"]:
        notes.append(f"column(s) {', '.join(found['wide edge'])}: a bound reached 1999/2000, where the draft's years "
                     "are tested in two halves, and the years on its other side did not stand out together (they "
                     "need about the rows given), so any there are clipped; if the column runs past it (births after "
                     "1999), declare its bounds from public knowledge, or draft with a larger epsilon")
    empty = [c.name for c in drafted if isinstance(c, CategoricalColumn) and not c.values and c.other]
    if private and delta > 0 and empty:  # public: which categories the noisy selection kept (with delta = 0 the
        # "no keys" note says none can be chosen)
        notes.append(f"column(s) {empty} drafted with no categories: no value was common enough to stand out of the "
                     "noise, so every synthetic value would be the other bucket; list their values from public "
                     "knowledge, leave out a column of identifiers (one value a row: a synthetic table cannot carry "
                     "them; --columns, or columns=), declare dates written another way than ISO (10/3/2019) as a "
                     "date with their \"format\" (\"%m/%d/%Y\") and bounds, or draft with a larger epsilon")
    identifiers = [name for name in names if any(pattern.search(name) for pattern in IDENTIFIER_NAMES)]
    if identifiers:  # public: the header
        notes.append(f"column(s) {identifiers} look like identifiers by their names: a synthetic table cannot carry "
                     "identifiers (each value belongs to one record); if they are, leave them out of the schema (a "
                     "column outside it is not read)")
    # public: the kind and the words' spelling (true/false, Y/N, ...) were chosen from the noisy profile. A column
    # of typed booleans (a DataFrame's or Parquet's) is written back as booleans, so only text needs its words declared
    booleans: dict[tuple[str, str, bool], list[str]] = {}
    for c, p in zip(drafted, profiles):
        if isinstance(c, BooleanColumn) and not isinstance(p.raw, TypedColumn):
            booleans.setdefault((*c.first_words[::-1], p.local_words), []).append(c.name)
    for (true, false, local), names_written in booleans.items():
        others = (" and in the other languages the draft knows (ja/nein, oui/non, sí/no, sim/não, tak/nie)" if local
                  else "")
        notes.append(f"column(s) {names_written} drafted as boolean: synth writes them back as {true}/{false}, the "
                     f"spelling most of their values use, and reads every spelling of true/false and yes/no{others}; "
                     'if the table writes them otherwise (1/0, Vrai/Faux), declare its words, e.g. "true": ["Vrai"], '
                     '"false": ["Faux"]')
    # public: the kinds drafted. Two dates in a row are often in an order the data cannot be asked for privately
    # (an admission and its discharge); said once, with the declaration that keeps synthetic rows in it.
    for kind in ("date", "datetime"):
        dated = [c for c in drafted if c.kind == kind]
        # a between column is blank where a date is: the example says so where a drafted date may be
        null = ', "null": true' if any(c.null or c.other for c in dated[:2]) else ""
        if len(dated) > 1:
            names_of = [c.name for c in dated[:2]]
            notes.append(f"column(s) {[c.name for c in dated]} are {kind}s: where one never comes before another in a "
                         f'row (an admission and its discharge), declare it, e.g. "ordered": [{json.dumps(names_of)}] '
                         'beside "columns", or synthetic rows hold them in either order where their bins meet (two '
                         "dates of one month bin: about half the rows); and where the time between them matters (a "
                         'stay), add it as a column, e.g. "stay": {"type": "integer", "between": '
                         f'{json.dumps(names_of)}, "bounds": [0, 60], "clip": true{null}}}, '
                         "or it is drawn as coarse as the bins" + _until_hint(dated[1]))
    # public: the kinds and bounds drafted. Two integer columns of years (hired and left, born and surveyed) are as
    # often in an order, and a third column is often the years between them (a tenure, an age): read from the table,
    # such a column agrees with its two years in a few synthetic rows (session 76: 2.5-6 %).
    yearly = [c for c, p in zip(drafted, profiles) if isinstance(c, IntegerColumn) and c.format is None and p.in_years
              and c.low is not None and 1800 <= c.low and c.high <= 2100]
    if len(yearly) > 1:
        first, second = (c.name for c in yearly[:2])
        null = ', "null": true' if any(c.null or c.other for c in yearly[:2]) else ""
        notes.append(f"column(s) {[c.name for c in yearly]} are integers of years: where one never comes before "
                     f'another in a row (hired and left), declare it, e.g. "ordered": [{json.dumps([first, second])}] '
                     "beside \"columns\"; and where a column of the table is the years between them (a tenure, an "
                     'age), declare it computed from them, e.g. "years": {"type": "integer", "between": '
                     f'{json.dumps([first, second])}, "bounds": [0, 100], "clip": true{null}}}, so that every '
                     "synthetic row keeps it (read from the table, it is drawn apart from them)" + _until_hint(yearly[1]))
    if epsilon is None:
        warn_user(NOT_PUBLIC, UserWarning)
        draft = Draft("non-private", NOT_PUBLIC)
    else:
        note = (f"differentially private draft (epsilon={epsilon:g}, delta={delta:g}): review every column and "
                "replace what public knowledge gives better; this spend counts toward any release that uses it.")
        ledger = accountant.to_json()
        if person is not None:
            note = person_note(person, epsilon, delta)
            ledger = person_ledger(ledger, accountant.ledger, person, person_accountant.ledger)
        draft = Draft("dp", " ".join([note, *notes]), ledger)
    for line in notes:
        warn_user(line, UserWarning)
    return Schema(drafted, probe.null_tokens, True, draft)


def _visibility_note(epsilon: float, main: Fraction, delta_share: Fraction, users: int, num_columns: int,
                     few_values_bins: int | None = None) -> str:
    """What the noise hides at this budget: the rows a bound cell, a year or a category needs to be kept (the
    thresholds of :func:`_bounds` and of the stability histogram), so that a narrow draft is read as the noise's
    doing, not the data's. From epsilon, delta, the column count and how many columns the profiles found needing
    bounds or categories (a noisy output: post-processing)."""

    # the larger of the integers' and the decimals' number of tests (an integer's years are tested apart,
    # :func:`_bounds`)
    tests = max(_other_tests(edges, _decade_runs(edges), ()) for edges in (_cell_edges(True), _cell_edges(False)))
    date_tests = _other_tests(_DATE_EDGES, _DATE_RUNS, _DATE_CENTURIES)
    # a decade only widens bounds a cell already set (:func:`_bounds`): the notes say "beyond them"
    parts = [f"a number's bounds keep the cells (..., 10-19, 20-29, ..., 100-199, ..., and the years 1900-2099 one "
             f"each, where an integer column's numbers are mostly years) holding more than about "
             f"{_threshold(main / 2, tests):,.0f} rows, the cells next to those holding more than about "
             f"{_scale(main / 2) * math.log(1 / NEXT_CELL_FALSE):,.0f} (and 0.5 % of the column's rows), and beyond "
             f"them the decades (1-9.99, 10-99.9, ...) holding "
             f"more than about {_sum_threshold(main / 2, 9, tests):,.0f} (1.5 times as many where a column has the "
             f"rows to refine its bounds inside their outer cells)", f"a date's bounds the years holding more "
             f"than about {_threshold(main, date_tests):,.0f}, the years next to those more than about "
             f"{_scale(main) * math.log(1 / NEXT_CELL_FALSE):,.0f}, and beyond them the decades holding more than "
             f"about "
             f"{_sum_threshold(main, 10, date_tests):,.0f} (1.5 times as many where a column has the rows to refine "
             f"its bounds by month and day)"]
    if delta_share > 0:
        parts.append(f"a category needs about {1 + _scale(main) * np.log(2 / float(delta_share)):,.0f} rows")
    if delta_share > 0 and few_values_bins is not None:
        parts.append(f"a number column is drafted as its values where at most {few_values_bins} of them, each held "
                     f"by more than about {1 + _scale(main / 4) * np.log(2 / float(delta_share)):,.0f} rows, hold "
                     "nearly all its rows")
    return (f"At epsilon={epsilon:g} over {num_columns} columns ({users} of them needing bounds, categories or "
            f"words, epsilon={float(main):.3g} each), {', '.join(parts)}: bounds narrower or fewer categories than the "
            "data has are the noise's doing; widen them from public knowledge, or draft with a larger epsilon.")


def _blanks_note(names: list[str], profile_share: Fraction) -> str:
    """Which columns got no ``null`` bucket and how many blanks the profile's noise hides. A column gets the bucket
    when its noisy count of blanks passes the noise scale (:func:`_profile`), so a few blanks can go unseen, and
    synth then refuses the table at the first one: a missed bucket costs the user a run, a spurious one at most a
    few blank synthetic values, so the note names every column it could be (post-processing of the profiles)."""
    return (f"column(s) {names} got no null bucket: a column's blanks are seen when more than about "
            f"{_scale(profile_share):,.0f} rows are blank (the profile's Laplace scale at epsilon="
            f"{float(profile_share):.3g}), so fewer go unseen; if any of these columns may hold blanks, declare "
            '"null": true, or synth stops with "NULL values (declare null)"')


def _spurious_blanks_note(names: list[str], profile_share: Fraction) -> str:
    """The other side of :func:`_blanks_note`: a column that is never blank still gets the bucket when the profile's
    noise alone passes the scale t, with probability P(Z >= floor(t) + 1) = e^(-(floor(t) + 1) / t) / (1 + e^(-1/t))
    for the discrete Laplace Z (about 18 %), and its synthetic values then hold a few blanks (0.55 % of 4,000 rows
    in one trial). The note names the bucketed columns and that chance (public: the scale only)."""
    t = _scale(profile_share)
    chance = math.exp(-(math.floor(t) + 1) / t) / (1 + math.exp(-1 / t))
    return (f"column(s) {names} got a null bucket: a column that is never blank gets one in about {chance:.0%} of "
            "drafts (the profile's noise alone passes the scale), and its synthetic values then hold a few blanks; "
            'remove "null" from any of these columns that cannot be blank')


def person_note(person: Mapping[str, Any], epsilon: float, delta: float) -> str:
    """The draft's first note when drafted per person (public: the budget, the bound, the id column's name)."""
    k = person["rows_per_person"]
    return (f"differentially private draft per person (epsilon={person['epsilon']:g}, delta={person['delta']:g} for "
            f"one person added or removed, a person being a value of {person['privacy_id']!r}): each person kept at "
            f"most {k} rows, drawn at "
            f"random, and the draft ran per record at epsilon={epsilon:.6g}, delta={delta:.3g}, which group privacy "
            f"over {k} records turns into the person-level charges of its ledger (the notes below speak of that "
            "per-record run); review every column and replace what public knowledge gives better; this spend counts "
            "toward any release that uses it, which must run with the same privacy id.")


def rows_note(histogram: Mapping[str, Any], rows_per_person: int) -> str:
    """What the noisy histogram of the persons' rows says (post-processing): about how many persons, what share of
    them have at most 1, 2, 4, ... rows, about how many rows each bound keeps, with its noise, and the size of the
    table whose noise a release at that bound has (rows kept / k: the bias-noise trade of choosing k). No share of the
    rows: one person may hold any number of them (:func:`~dprelease.privacy.contributions.rows_kept_estimate`)."""
    noisy = np.asarray(histogram["noisy_persons"], dtype=np.float64)
    epsilon = histogram["epsilon"]
    persons, persons_sd = rows_kept_estimate(noisy, 1, epsilon=epsilon)  # a bound of 1 keeps one row a person
    if persons <= 3 * persons_sd:
        return (f"{histogram['privacy_id']!r}: the persons' numbers of rows did not stand out of the noise (about "
                f"{persons:,.0f} persons, give or take {persons_sd:,.0f}).")
    # the persons' shares from the buckets that stand 3 scales above their noise (the rest read as empty)
    seen = np.where(noisy > 3 * 2 / epsilon, noisy, 0.0)
    shares = np.minimum(np.cumsum(seen) / persons, 1.0)
    highs = [edge - 1 for edge in ROWS_BUCKET_EDGES[1:]]
    last = int(np.flatnonzero(seen)[-1]) if seen.any() else -1
    last = min(last, int(np.argmax(shares >= 0.995)) if (shares >= 0.995).any() else last, len(highs) - 1)
    steps = [f"{high:,}: {share:.0%}" for high, share in list(zip(highs, shares))[:last + 1]]
    bounds = sorted({1, 2, 4, 8, 16, 32, rows_per_person})
    kept = [rows_kept_estimate(noisy, k, epsilon=epsilon) for k in bounds]
    # a larger bound keeps at least as many rows: the estimates made so (their noise grows with k; post-processing)
    rows = nondecreasing([r for r, _ in kept], [1 / sd ** 2 for _, sd in kept])
    keeps = ", ".join(f"{k:,}: {r:,.0f} (± {sd:,.0f})" for k, r, (_, sd) in zip(bounds, rows, kept))
    # a release at bound k has every sensitivity k times a record's: the noise of a table of rows kept / k rows
    tables = ", ".join(f"{k:,}: {max(r, 0.0) / k:,.0f}" for k, r in zip(bounds, rows))
    return (f"{histogram['privacy_id']!r}: about {persons:,.0f} persons (± {persons_sd:,.0f}, one standard deviation "
            f"of the noise); persons with at most so many rows {'; '.join(steps) if steps else '(no bucket stood out)'}; "
            f"rows a bound keeps, about, by --rows-per-person {keeps}; a release at each bound has the noise of a "
            f"table of about rows kept / k rows: {tables} (the smaller, the noisier). Compare the rows "
            "kept with the table's number of rows: "
            "one person may hold any number of rows, so their share of the table is not estimated privately (noisy: "
            f"discrete Laplace of scale {2 / epsilon:,.0f} persons a bucket; in the persons' shares buckets under 3 "
            "scales read as empty).")


def nondecreasing(values: Sequence[float], weights: Sequence[float]) -> list[float]:
    """The weighted least-squares nondecreasing fit to ``values`` (pool adjacent violators)."""
    blocks: list[list[float]] = []  # [weighted mean, weight, length]
    for value, weight in zip(values, weights):
        blocks.append([float(value), float(weight), 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            (m2, w2, n2), (m1, w1, n1) = blocks.pop(), blocks.pop()
            blocks.append([(m1 * w1 + m2 * w2) / (w1 + w2), w1 + w2, n1 + n2])
    return [mean for mean, _, length in blocks for _ in range(length)]


def read_source(data: object, names: Sequence[str] | None, **options) -> Table:
    """One file, a DataFrame or a Table as :func:`read_table` reads it, or the part files that ``synth`` reads as one
    table (a glob, a folder, a list of paths), each read alike and their rows joined (the draft's and ``evaluate``'s
    reader of raw values)."""
    if not several_files(data):
        return read_table(data, names, **options)
    files, label = resolve_files(data)
    if len(files) == 1:
        return read_table(files[0], names, **options)
    return concat_tables([read_table(file, names, **options) for file in files], label)


def draft_charges(schema: Schema) -> list[Charge]:
    """The draft's charges, exact, for adding to a release's ledger (empty for a schema not drafted privately)."""
    if schema.draft is None or not schema.draft.is_public:
        return []
    return [Charge(f"schema draft: {label}", eps, delta, rule) for label, eps, delta, rule in schema.draft.charges()]


class _OpenReader:
    """Exact statistics, for ``non_private=True`` only: NOT differentially private (the schema says so)."""

    def histogram(self, cells, num_cells, *, epsilon, label):
        return np.bincount(cells, minlength=num_cells)

    def quantiles(self, values, probabilities, candidates, *, epsilon, label):
        return np.quantile(values, probabilities, method="inverted_cdf")

    def keys(self, index, num_keys, *, epsilon, delta, max_keys, label, with_counts=False):
        counts = np.bincount(index, minlength=num_keys)
        present = np.flatnonzero(counts)
        kept = present[np.argsort(-counts[present], kind="stable")][:max_keys]
        return (kept, counts[kept]) if with_counts else kept


# ------------------------------------------------------------------- one column
@dataclass(frozen=True)
class _Profiled:
    """A column after its noisy profile: the kind and NULL bucket chosen, the rest still to draft."""

    name: str
    raw: object
    text: np.ndarray | None
    row_class: np.ndarray
    counts: np.ndarray
    #: the same noisy counts before ``counts`` clipped them at 0 (:func:`has_stray` sums them)
    unclipped: np.ndarray
    noise: float
    kind: str
    has_null: bool
    #: whether the kind was declared or some non-NULL class stood out of the noise (else the kind is a guess)
    kind_seen: bool = True
    #: how a number column writes its numbers in text, as schema options (:func:`_written`); {} when plainly
    written: tuple[tuple[str, object], ...] = ()
    #: the date format declared for the column (``formats``), or None: ISO
    text_format: str | None = None
    #: whether ``types`` declared the kind (a declared numeric column is numbers: no test of few values)
    declared: bool = False
    #: the date format the profile found (:func:`_written_date`), or None (none found, or one declared)
    found_format: str | None = None
    #: for slash dates whose order the profile could not tell, why: "neither" or "both" orders stood out
    slash_order: str | None = None
    #: the categories declared for the column (``categories``), or None; and whether its rows outside them stood out
    #: of its profile's noise (then it gets an ``other`` bucket)
    categories: tuple[object, ...] | None = None
    outside_seen: bool = False
    #: whether words written for a missing value (NA, N/A, null) stood out of the profile's noise in a column of
    #: numbers, dates or booleans: its blanks, then read by its ``null_tokens`` (:data:`MISSING_WORDS`)
    missing_words: bool = False

    def has_stray(self, conforming: Sequence[int]) -> bool:
        """Whether the rows of no ``conforming`` class (nor NULL) stand out of the profile's noise: then the column
        gets an ``other`` bucket, else it clips (:func:`has_stray`). Never for a numpy integer or bool column drafted
        as numbers or a boolean: its (public) dtype makes every row of that kind, so only the noise could pass (a
        trial's bool came back with ``<other>``)."""
        if self.never_null and self.kind in ("boolean", "integer", "numeric"):
            return False
        return has_stray(self.unclipped, self.noise, conforming)

    @property
    def never_null(self) -> bool:
        """Whether the column's (public) dtype holds no NULL: a DataFrame's numpy integers or booleans."""
        return never_null(self.raw)

    @property
    def local_words(self) -> bool:
        """Whether a boolean column's words in another language than English (ja, oui, sí, ...) stand out of the
        profile's noise: then its spelling is read from a histogram of its words (:func:`_local_boolean`)."""
        return self.kind == "boolean" and bool(_counted(self.counts, self.noise)[C_LOCAL_YESNO] > 0)

    def needs_budget(self, delta: float) -> bool:
        """Whether drafting the rest privately reads the data: a boolean's does not (unless written in another
        language, whose spelling is counted), nor text's when delta = 0, nor a declared time of day's (its bounds
        are the day's)."""
        declared_clock = self.found_format is None and self.text_format is not None and time_of_day(self.text_format)
        return ((self.kind != "boolean" or self.local_words) and not (self.kind == "categorical" and delta == 0)
                and not declared_clock and self.categories is None)

    @property
    def in_years(self) -> bool:
        """Whether the column's whole numbers are mostly 1900-2099 (years): then an integer's bounds cells there are a
        year each (:func:`_cell_edges`). Where the profile cannot tell (neither class stands out of its noise), years,
        as before session 70: a year column's years need their cells, a duration's thousands only pay a thinner tail.
        Post-processing of the profile's noisy counts (public)."""
        counts = _counted(self.counts, self.noise)
        years, others = float(counts[C_YEAR_NUMBER]), float(counts[C_INTEGER])
        return years + others <= 0 or years >= YEARS_SHARE * (years + others)

    def tests_few_values(self, *, private: bool, delta: float | Fraction) -> bool:
        """Whether the draft asks if a few values hold nearly all the column's rows (:func:`_few_values`): a number
        column whose kind was not declared, privately only with delta > 0 (its values are keys nobody declared)."""
        return self.kind in ("integer", "numeric") and not self.declared and (not private or delta > 0)


def _until_hint(second: Column) -> str:
    """For the drafts' notes on two dates or years: where the second may be blank, how to count a row still running
    up to the day the table was extracted (``until``; the drafted high bound as the example). Public: the draft."""
    high = getattr(second, "high", None)
    high = second.edges[-1] if high is None and getattr(second, "edges", None) else high  # a date binned by edges
    if not second.null or high is None:
        return ""
    return (f'; where a blank {second.name!r} means not yet (still employed, still open), add "until": '
            f"{json.dumps(high)} (the day the table was extracted) and the time runs to it")


def never_null(raw: object) -> bool:
    """Whether a read column's (public) dtype holds no NULL: a DataFrame's numpy integers or booleans."""
    return isinstance(raw, TypedColumn) and raw.never_null


def _profile(name, raw, reader, null_tokens, declared, share, text_format=None) -> _Profiled:
    # Parse (no counting): each row's class, and its value where it has one.
    if isinstance(raw, TypedColumn):
        row_class = np.where(raw.missing, C_NULL, typed_classes(raw.datetimes("date"), raw.zoned))  # midnight: the zone's
        text = None
    else:
        text = texts(raw.uniques, strip=True)
        unique_class = classify(text, null_tokens)
        if text_format is not None:  # the declared (public) format: a value that reads by it is a date, by itself
            _, dated = parse_formatted_times(text, text_format, "s")
            unique_class = np.where(dated & (unique_class != C_NULL),
                                    C_DATE if declared == "date" else C_DATETIME, unique_class)
        row_class = np.where(raw.index < 0, C_NULL, unique_class[np.maximum(raw.index, 0)] if len(text) else C_NULL)
    row_class = row_class.astype(np.int8)  # every column's classes wait for the split: one byte a row each
    # PROFILE: a quarter of the column's equal part of epsilon.
    read = np.asarray(reader.histogram(row_class, len(CLASSES), epsilon=share, label=f"{name}: profile"),
                      dtype=np.float64)
    noise = _scale(share)  # the profile's noise scale (0 openly): a class counts when above it
    # words written for a missing value (NA), asked alone as text is: blanks in a column of numbers, dates or booleans
    missing_seen = bool(read[C_MISSING_WORD] > noise * np.log(1 / FALSE_CELL))
    noisy = _missing_words_as(read, C_NULL if missing_seen else None)
    counts = np.maximum(noisy, 0)
    seen = declared is not None or _visible(counts, noise) is not None
    written = _written(counts, noise)
    kind = declared or _kind(counts, noise, written)
    written = tuple(written.items()) if kind in ("integer", "numeric") else ()
    found_format, slash_order = None, None
    if text_format is None and text is not None and (declared in ("date", "datetime") or
                                                     (declared is None and kind == "categorical")):
        found_format, slash_order = _written_date(counts, noise)
        if found_format is not None:  # public: chosen from the noisy classes (post-processing)
            kind, text_format = "date", found_format
    missing_blank = missing_seen and kind != "categorical"
    if missing_seen and not missing_blank:  # a text column's NA is one of its values
        noisy = _missing_words_as(read, C_TEXT)
        counts = np.maximum(noisy, 0)
        seen = declared is not None or _visible(counts, noise) is not None
    row_class = np.where(row_class == C_MISSING_WORD, C_NULL if missing_blank else C_TEXT, row_class).astype(np.int8)
    # a NULL bucket where the NULL class (or the words read as blanks, which passed a higher bar) stands out of the
    # noise, never where the (public) dtype holds no NULL
    has_null = bool(counts[C_NULL] > noise or missing_blank) and not never_null(raw)
    return _Profiled(name, raw, text, row_class, counts, noisy, noise, kind, has_null, seen,
                     written, text_format, declared is not None, found_format, slash_order,
                     missing_words=missing_blank)


def _reading_missing_words(column: Column, null_tokens: tuple[str, ...]) -> Column:
    """``column`` reading the schema's ``null_tokens`` and every spelling of :data:`MISSING_WORDS` as NULL (a boolean
    keeps the words as it writes them: its ``true`` and ``false`` fields hold them lower-cased)."""
    words = {"true": column.written[0], "false": column.written[1]} if isinstance(column, BooleanColumn) else {}
    return replace(column, null_tokens=(*null_tokens, *MISSING_WORDS), **words)


def _missing_words_as(noisy: np.ndarray, into: int | None) -> np.ndarray:
    """The profile's noisy counts with the class of words written for a missing value (:data:`C_MISSING_WORD`)
    added to class ``into``: NULL where the column reads them as blanks, text where it does not (as every other
    word); None where they did not stand out of the noise: its count is left out, since its noise added to the text
    class's made a column of integers text four times as often (0.2 % of drafts). Post-processing of noisy counts."""
    out = noisy.copy()
    if into is not None:
        out[into] += out[C_MISSING_WORD]
    out[C_MISSING_WORD] = 0.0
    return out


def _declared_categories(categories, types: Mapping[str, str], formats: Mapping[str, str]) -> dict[str, tuple]:
    """``categories`` checked before anything is read: each a list of distinct categories (strings or integers, as a
    schema's) on a column whose declared kind, if any, is categorical and that has no date format."""
    if categories is None:
        return {}
    if not isinstance(categories, Mapping):
        raise InputTypeError(f"categories must map column names to lists of categories, got {categories!r:.100}")
    out = {}
    for name, values in categories.items():
        if not isinstance(name, str) or not name:
            raise InputTypeError(f"categories must map column names to lists of categories, got the name {name!r}")
        column = CategoricalColumn(name=name, values=values)  # the schema's own checks name the column (at least one)
        if types.get(name, "categorical") != "categorical" or name in formats:
            raise InputError(f"column {name!r} has declared categories and the type {types.get(name)!r} (or a date "
                             "format): categories are for categorical columns")
        out[name] = column.values
    return out


def _declared_profile(name, raw, reader, null_tokens, values: tuple, share) -> _Profiled:
    """The profile of a column whose categories are declared (``categories``): a noisy histogram of its rows over
    [blank, outside the categories, each category] at the profile's ``share`` (the same charge and L1 sensitivity
    as :func:`_profile`'s). A NULL bucket where the blanks pass the noise scale (as a profile's), an ``other`` bucket
    where the rows outside pass noise x ln(1 / 0.001) (an empty cell passes with probability <= 0.001; openly, any
    such row). Privacy: (share, 0)-DP, the reader's discrete Laplace histogram over public cells (the declared
    categories), L1 sensitivity 2 (Thm 3.6's discrete analogue), charged as the column's profile; the rest is
    post-processing of it."""
    keys = CategoricalColumn(name=name, values=values).keys
    position = {key: i for i, key in enumerate(keys)}
    text = texts(raw.uniques, strip=True)
    tokens = set(null_tokens)
    cell_of = np.array([0 if t is None or t in tokens else 2 + position[t] if t in position else 1 for t in text],
                       dtype=np.int64)
    cells = np.where(raw.index < 0, 0, cell_of[np.maximum(raw.index, 0)] if len(text) else 0)
    noisy = np.asarray(reader.histogram(cells, 2 + len(keys), epsilon=share, label=f"{name}: profile"),
                       dtype=np.float64)
    noise = _scale(share)
    as_classes = np.zeros(len(CLASSES), dtype=np.float64)  # the profile's shape, for the notes that read it
    as_classes[C_NULL], as_classes[C_TEXT] = noisy[0], noisy[1:].sum()
    has_null = bool(noisy[0] > noise) and not never_null(raw)
    outside = bool(noisy[1] > noise * np.log(1 / FALSE_CELL))
    row_class = np.where(cells == 0, C_NULL, C_TEXT).astype(np.int8)
    return _Profiled(name, raw, text, row_class, np.maximum(as_classes, 0), as_classes, noise, "categorical",
                     has_null, True, (), None, True, categories=values, outside_seen=outside)


def _finish(column: _Profiled, reader, main, delta_share, bins, max_categories, notes, found) -> Column:
    """The rest of a profiled column, with ``main`` epsilon (and ``delta_share`` for text)."""
    name, kind, counts, has_null = column.name, column.kind, column.counts, column.has_null
    if column.categories is not None:  # declared: nothing more to read
        found["declared categories"].append(name)
        return CategoricalColumn(name=name, values=column.categories, null=has_null, other=column.outside_seen)
    if kind == "boolean":
        other = column.has_stray((*BOOLEAN_CLASSES, C_INTEGER))
        if column.local_words:
            return _local_boolean(column, reader, main, other)
        return drafted_boolean(name, counts, null=has_null, other=other)
    if kind == "categorical":
        return _categories(name, column.raw, column.text, column.row_class, reader, main, delta_share,
                           max_categories, has_null, found["no keys"])
    written = dict(column.written)
    temporal = (C_DATE, *DATETIME_CLASSES)
    conforming = {"integer": INTEGER_CLASSES, "numeric": (*INTEGER_CLASSES, *DECIMAL_CLASSES), "date": temporal,
                  "datetime": temporal}[kind]
    if written:
        conforming += (C_COMMA,) if written.get("decimal") == "," else (C_GROUPED,)
    # postcodes, 9 % written 0xxxx (or a text column named so, public): read as numbers, written back with their
    # zeros (a DataFrame's typed integers stay numbers)
    padded = kind == "integer" and not written and (zero_padded(counts, column.noise)
                                                    or column.text is not None and bool(POSTCODE_NAMES.search(name)))
    conforming += (C_LEADING_ZERO,) if padded else ()
    conforming_rows, stray_times = np.isin(column.row_class, conforming), False
    if column.found_format in CLOCKLESS_FORMATS:  # a month without its day (2023-05), or 20240301: no time of day
        conforming += DATE_FORMAT_CLASSES[column.found_format]
        conforming_rows = np.isin(column.row_class, conforming)
        found["dates"].setdefault(column.text_format, []).append(name)
    elif column.found_format is not None:  # a date written another way: its time of day first, from a quarter (all
        # of the part for a time of day alone, whose bounds are the day's: public)
        conforming += DATE_FORMAT_CLASSES[column.found_format]
        alone = column.found_format == ""
        clock = main if alone else main / 4
        column, conforming_rows, stray_times = _time_of_day(column, reader, clock)
        main, kind = main - clock, column.kind
        found["dates"].setdefault(column.text_format, []).append(name)
    wide = {"other": True} if column.has_stray(conforming) or stray_times else {"clip": True}
    if kind in ("date", "datetime") and column.text_format is not None and time_of_day(column.text_format):
        # a time of day alone, found or declared: the day's bounds, public, by the hour (a declared one needs no part)
        return DatetimeColumn(name=name, low="1970-01-01T00:00:00", high="1970-01-01T23:59:59", unit="hour",
                              format=column.text_format, null=bool(has_null), **wide)
    values = _values(kind, column.raw, column.text, conforming_rows, written, column.text_format)
    taken = Fraction(0)  # spent from a date-time's bounds' part before its bounds (its step)
    if kind in ("date", "datetime"):
        dated = {**wide, "format": column.text_format} if column.text_format is not None else wide
        if kind == "datetime" and column.text_format is None:
            dated = {**dated, **written_datetime(counts)}  # written back as most of its values are (post-processing)
        iso = column.text_format is None
        if kind == "datetime" and not column.declared and (iso or "%M" in column.text_format):
            # an eighth of the bounds' part asks whether the values fall on steps (quarter hours; whole minutes where
            # they are written with their seconds: ISO's, or a format's %S), where that can answer yes
            with_seconds = dated.get("precision") != "minute" if iso else "%S" in column.text_format
            private = isinstance(reader, PrivateColumnReader)
            step_part = main * (1 - TIME_OF_DAY_SHARE) * STEP_SHARE if private else Fraction(0)
            # the rows: the profile's noisy count of its date-times (ISO's classes, or its format's); openly, exact
            step_rows = float(counts[[*DATETIME_CLASSES, *DATE_FORMAT_CLASSES.get(column.found_format, ())]].sum()) \
                if private else float(np.count_nonzero(conforming_rows))
            if not private or step_pays(step_part, step_rows):
                taken = step_part
                step = _written_step(name, column, reader, taken, conforming_rows, values, step_rows,
                                     MINUTE_STEPS if with_seconds else CLOCK_STEPS)
                if step is not None:  # ISO writes a step's :00 seconds by ``seconds``; a format by its %S
                    dated = {**dated, "precision": step, **({"seconds": True} if iso and with_seconds else {})}
        # the profile's unclipped count of the rows a time of day is read from, and its noise's variance
        clock_rows = (float(column.unclipped[list(conforming)].sum()), 2 * column.noise ** 2 * len(conforming))
        return _dates(name, kind, values, reader, main, has_null, dated, found,
                      rows=float(counts[list(conforming)].sum()), clock_rows=clock_rows, taken=taken)
    edges_epsilon = main / 2
    spiky = False
    spikes: list[tuple[float, float]] = []  # values on a bin's share of the rows and their steps, by the keys
    if column.tests_few_values(private=isinstance(reader, PrivateColumnReader), delta=delta_share):
        # half the bin edges' part: the bounds keep theirs (a larger threshold clips more), and a column drafted
        # as its values needs neither
        held: list[str] = []
        # (codes written to a width: all of it, since a postcode's code is what matters where a few hold most rows;
        # their bins are then equal, by range)
        few = _few_values(column, reader, main / 2 if padded else main / 4, delta_share, bins, found["mostly few"],
                          held, codes=max_categories if padded else None, spikes=spikes, written=written)
        if few is not None:
            found["codes" if padded else "few values"].append(name)
            return few
        edges_epsilon = main / 4
        # a few values hold a third of its rows (public: the test's passing keys): an integer column of few integers
        # then gets one bin each (ONE_BIN_EACH), since bins of two decode half of each value as its neighbour
        spiky = bool(held)
    if padded:  # codes written to a width: equal bins over every code of their digits, so no edges to place
        edges_epsilon = Fraction(0)
    rows = float(counts[list(conforming)].sum())
    private = isinstance(reader, PrivateColumnReader)
    if not private or _edges_unspent(private, bins, main / 2, edges_epsilon, rows):  # (openly: exact, free)
        # the bins will be equal and the bounds not refined: a quarter of the edges' part, unspent before, says how
        # many decimals the column writes, and another which sign, and where (the rest still unspent; where the part
        # places quantiles or refines the bounds it is left whole)
        share = edges_epsilon * WRITTEN_SHARE
        if kind == "numeric":
            edges_epsilon -= share
            written = {**written, **(_written_decimals(name, column, reader, share, conforming_rows, written, rows)
                                     or _profile_decimals(column))}
        if written.get("symbols") and column.text is not None:
            edges_epsilon -= share
            written = {**written, **_written_sign(name, column, reader, share, conforming_rows, rows)}
        if kind == "integer" and not column.in_years and not spiky and not padded:  # (a code rounds to nothing)
            # half of what is left says which power of ten the table rounds to (salaries in whole hundreds), or a
            # duration's seconds to whole minutes or hours
            rounding = edges_epsilon / 2
            edges_epsilon -= rounding
            duration = getattr(column.raw, "duration", False)  # a DataFrame's timedeltas, a Parquet INTERVAL
            written = {**written, **_written_multiple(name, column, reader, rounding, conforming_rows, written, rows,
                                                      CLOCK_MULTIPLES if duration else TEN_POWERS)}
    elif kind == "numeric":  # the edges' part places quantiles: the decimals the profile's classes show, at no cost
        written = {**written, **_profile_decimals(column)}
    if set(written) - {"decimals", "multiple"}:  # the format is public once chosen from the profile's noisy classes
        # (post-processing); a column whose only find is its decimals is named by the schema's review line instead
        options = ", ".join(f'"{k}": {json.dumps(v, ensure_ascii=False)}' for k, v in written.items())
        found["written"].setdefault((_written_words(written), options), []).append(name)
    # a padded column's drafted bounds are replaced below, so what they found about their outer cells is not noted
    outer: list[str] = []
    unwalked: list[float] = []
    drafted = _numbers(name, kind, values, reader, main / 2, edges_epsilon, bins, has_null, {**wide, **written},
                       notes, {**found, "outer": outer}, rows=rows, years=column.in_years,
                       one_bin_each=ONE_BIN_EACH * bins if spiky else bins, unwalked_out=unwalked,
                       spikes=() if padded else spikes)
    if padded and isinstance(drafted, IntegerColumn) and drafted.low >= 0:
        # written with as many digits as the high bound has, over every code of that many (public: the drafted high
        # bound): the codes written with a leading zero sit below the plain ones, in cells too thin to stand out
        # alone (US ZIP codes 01001-09999, 8 % of the rows over nine cells), and were clipped to 10000. The high bound
        # before its walk over the cells next to it: an empty cell 100000-199999 passing the walk's lower level by its
        # noise made ZIP codes 6 digits on 7 % of drafts (session 80), and every synthetic code 0xxxxx
        high = min(drafted.high, int(unwalked[0]) - 1) if unwalked else drafted.high
        digits = max(2, len(str(high)))
        drafted = replace(drafted, low=0, high=10**digits - 1, edges=None, width=None, bins=min(bins, 10**digits),
                          digits=digits)
        found["digits"].append(name)
        return drafted
    found["outer"].extend(outer)
    if padded and not isinstance(drafted, IntegerColumn):  # bounds undecided
        found["undecided digits"].append(name)
    return drafted


#: The share of a number column's bin edges' part, where it would go unspent (:func:`_edges_unspent`), that a decimal
#: column spends on how many decimals it writes (:func:`_written_decimals`), and a column written with signs on which
#: sign, and where (:func:`_written_sign`).
WRITTEN_SHARE = Fraction(1, 4)


def _edges_unspent(private: bool, bins: int, bounds_epsilon: Fraction, edges_epsilon: Fraction, rows: float) -> bool:
    """Whether a number column's bin edges' part goes unspent (:func:`_numbers`): quantiles would be the noise's (the
    exponential mechanism's rank error, its noise scale times ln 1000, above half a bin's rows) and refining the
    bounds would not pay either. Public: the parts, the bins, the profile's noisy count."""
    if _quantiles_see(private, bins, edges_epsilon, rows):
        return False
    return not refining_pays((bounds_epsilon / 3 + edges_epsilon) / REFINE_LEVELS, rows)


def _quantiles_see(private: bool, bins: int, edges_epsilon: Fraction, rows: float) -> bool:
    """Whether quantiles would be the data's: the exponential mechanism's rank error, about its noise scale times
    ln(#candidates), against half a bin's rows; else the bins are equal and need no budget (public: epsilon, the
    bins, the profile's noisy count). Privately with no edges' part (codes written to a width): never."""
    if private and not edges_epsilon:
        return False  # (at epsilon 0 the exponential mechanism's quantiles would be drawn evenly: noise alone)
    return not private or bins < 2 or _scale(edges_epsilon / (bins - 1)) * math.log(1000) < rows / (2 * bins)


def _written_sign(name: str, column: _Profiled, reader, epsilon: Fraction, rows_mask: np.ndarray,
                  rows: float) -> dict[str, str]:
    """``{"prefix": "€"}`` (or a ``suffix``) where most of a number column's values carry that sign there: a noisy
    histogram of its rows (those ``rows_mask`` keeps) over the signs of :data:`DRAFT_SYMBOLS`, each before or after
    the number, and one cell for the rest, at ``epsilon``; the fullest cell wins where its noisy count passes
    t ln(#cells / 0.001) (t the noise scale) and half of ``rows``, the profile's noisy count of the column's
    numbers; {} otherwise (read with any sign, written without one, as before). A new user's unit prices written
    €38.05 came out 38.05.
    Privacy: (epsilon, 0)-DP, the reader's histogram (its "sign" charge); the choice reads only its noisy counts."""
    variants = [(symbol, place) for symbol in DRAFT_SYMBOLS for place in ("prefix", "suffix")]
    cell_of = {variant: 1 + i for i, variant in enumerate(variants)}

    def variant(text: object) -> int:
        if not isinstance(text, str):
            return 0
        stripped = text.strip().lstrip("-+").strip()
        for symbol in DRAFT_SYMBOLS:
            if stripped.startswith(symbol):
                return cell_of[(symbol, "prefix")]
            if stripped.endswith(symbol):
                return cell_of[(symbol, "suffix")]
        return 0

    cells = _text_cells(column, rows_mask, variant)
    counts = np.asarray(reader.histogram(cells, 1 + len(variants), epsilon=epsilon, label=f"{name}: sign"),
                        dtype=np.float64)
    best = 1 + int(np.argmax(counts[1:]))
    level = 0.0 if isinstance(reader, _OpenReader) else _scale(epsilon) * math.log((1 + len(variants)) / FALSE_CELL)
    if counts[best] <= level or counts[best] < rows / 2:
        return {}
    symbol, place = variants[best - 1]
    return {place: symbol}


def _text_cells(column: _Profiled, rows_mask: np.ndarray, cell_of: Callable[[object], int]) -> np.ndarray:
    """Each row's histogram cell: ``cell_of`` its distinct text (computed once a text), 0 for a row ``rows_mask``
    leaves out or a NULL. Parsing only: nothing is counted."""
    unique = np.array([cell_of(t) for t in column.text], dtype=np.int64) if len(column.text) else np.zeros(1, np.int64)
    index = column.raw.index
    return np.where(rows_mask & (index >= 0), unique[np.maximum(index, 0)], 0)


_DECIMALS = 7  # 0..5 decimal places, and 6 or more


def _profile_decimals(column: _Profiled) -> dict[str, int]:
    """``{"decimals": d}`` from the profile's classes alone (:data:`~dprelease.schema.parse.DECIMAL_CLASSES`): 2 where
    numbers written with two places stand out of its noise, else 1 where those with one do; {} where numbers with
    three places or more do (their places vary: the shortest text stays), or no decimal class does. A new user's
    ratings written 3.6 came out 3.111 where the bins' part placed quantiles and no histogram of places was drawn
    (:func:`_written_decimals`, which reads 0-6 places where that part would go unspent). Public: post-processing of
    the profile's noisy counts."""
    visible = _visible(column.counts, column.noise)
    if visible is None or visible[C_DECIMAL] > 0:
        return {}
    for places, decimal_class in ((2, C_DECIMAL_2), (1, C_DECIMAL_1)):
        if visible[decimal_class] > 0:
            return {"decimals": places}
    return {}


def _written_decimals(name: str, column: _Profiled, reader, epsilon: Fraction, rows_mask: np.ndarray,
                      written: Mapping[str, object], rows: float) -> dict[str, int]:
    """``{"decimals": d}``: the most decimal places that a number column's values are written with and that stand out
    of the noise, from a noisy histogram of its rows (those ``rows_mask`` keeps) over 0..5 places and 6 or more (and
    one cell for the rest) at ``epsilon``: the largest d whose noisy count passes t ln(8 / 0.001) (t the noise scale),
    where the cells that pass hold half of ``rows``, the profile's noisy count of the column's numbers; {} otherwise.
    Synthetic amounts are then written 15.30 and 0.00 as the table writes them (:class:`NumericColumn`), and an amount
    that is 0 on most rows can keep its zeros in a bin of their own (:func:`_holds_a_bin`). Privacy: (epsilon, 0)-DP,
    the reader's histogram (its "decimals" charge); the choice reads only its noisy counts."""
    reading = NumericColumn(name="_", edges=(0.0, 1.0), **written)

    def places(text: object) -> int:
        if not isinstance(text, str):
            return 0
        number = number_text(reading, text.strip()).strip().lstrip("-+")
        whole, _, fraction = number.partition(".")
        if not (whole or fraction) or not (whole + fraction).isdigit():
            return 0  # not a plain number (1e-05, text)
        return 1 + min(len(fraction), _DECIMALS - 1)

    if column.text is None:  # typed numbers (a DataFrame's floats): the fewest places that give each value back
        # (in a 4-byte float's own precision: as a double 8.1 is 8.100000381, and every temperature was drafted with
        # six places)
        stored = np.asarray(column.raw.values)
        finite = np.isfinite(stored.astype(np.float64))
        cells = np.where(rows_mask & finite, 1 + float_places(stored, _DECIMALS - 1), 0)
    else:
        cells = _text_cells(column, rows_mask, places)
    counts = np.asarray(reader.histogram(cells, 1 + _DECIMALS, epsilon=epsilon, label=f"{name}: decimals"),
                        dtype=np.float64)
    level = 0.0 if isinstance(reader, _OpenReader) else _scale(epsilon) * math.log((1 + _DECIMALS) / FALSE_CELL)
    passing = np.flatnonzero(counts[1:] > level)
    if len(passing) == 0 or counts[1:][passing].sum() < rows / 2:
        return {}
    return {"decimals": int(passing[-1])}


#: The multiples an integer column may be rounded to (:func:`_written_multiple`), each dividing the next: the powers
#: of ten from 10 to 10^6, and for durations (seconds) a minute and an hour.
TEN_POWERS = tuple(10 ** k for k in range(1, 7))
CLOCK_MULTIPLES = (60, 3600)
#: The steps a date-time written to the minute may fall on (:data:`~dprelease.schema.binned.PRECISIONS`), each
#: dividing the next: 5, 15 and 30 minutes, and the hour (session 79: appointments on quarter hours came back 08:27).
CLOCK_STEPS = (300, 900, 1800, 3600)
#: The same steps after the whole minute, for a date-time written with its seconds (session 80: meter readings written
#: 2024-01-01 00:15:00 came back at any second).
MINUTE_STEPS = (60, *CLOCK_STEPS)
#: The share of a date-time column's part (after its times of day) that asks which of :data:`CLOCK_STEPS` its values
#: fall on (:data:`MINUTE_STEPS` where written with their seconds; :func:`_written_step`).
STEP_SHARE = Fraction(1, 8)
#: The most share of a column's rows, with a deviation of its noise, that may be no multiple of the chosen power of
#: ten (:func:`_written_multiple`): a column rounded to hundreds save a few odd values is written in hundreds (the odd
#: ones lose digits no bin can tell apart).
MULTIPLE_STRAY = 0.1


def _written_multiple(name: str, column: _Profiled, reader, epsilon: Fraction, rows_mask: np.ndarray,
                      written: Mapping[str, object], rows: float, chain: Sequence[int] = TEN_POWERS,
                      values: np.ndarray | None = None, label: str = "multiple") -> dict[str, int]:
    """``{"multiple": m}``: the largest of ``chain`` (each dividing the next: the powers of ten 10 .. 10^6, or a
    duration's minute and hour) of which nearly all of an integer column's values are multiples, from a noisy
    histogram of its rows (those ``rows_mask`` keeps) by how many of the chain divide them (a 0 a cell of its own: a
    multiple of every one), and one cell for the rest, at ``epsilon``: the largest k where the rows that fewer than k
    divide, plus one deviation of their noise (scale x sqrt(2 k)), are at most :data:`MULTIPLE_STRAY` of the column's
    rows other than 0 (their noisy sum, and at most ``rows``, the profile's noisy count of its numbers: revenue that
    is 0 on most rows is not rounded for it), and the rest other than 0 pass t ln(#cells / 0.001); {} where none does.
    A new user's incomes in whole hundreds came back 41597, and waits in whole minutes 0:01:41 (decoded evenly over
    their bins' integers); they are then decoded as multiples (:func:`~dprelease.schema.binned.on_multiples`). Only
    where the bin edges' part would go unspent, as the decimals' histogram. Privacy: (epsilon, 0)-DP, the reader's
    discrete Laplace histogram over public cells, L1 sensitivity 2 (Thm 3.6's discrete analogue; its "multiple"
    charge, or ``label``'s); the choice reads only its noisy counts. ``values``: the rows'
    values already read (a date-time's seconds, for ``rows_mask``'s rows), where the text is not numbers."""
    steps = len(chain)

    def dividing(values: np.ndarray) -> np.ndarray:  # 1 + how many of the chain divide each; the last cell for 0
        values = np.asarray(values, dtype=np.float64)
        with np.errstate(invalid="ignore"):
            whole = np.isfinite(values) & (values == np.floor(values))
            cells = 1 + sum((np.mod(values, m) == 0).astype(np.int64) for m in chain)
        return np.where(whole, np.where(values == 0, 2 + steps, cells), 0)

    if values is not None:  # read already (date-times as seconds)
        cells = np.zeros(len(rows_mask), dtype=np.int64)
        cells[rows_mask] = dividing(values)
    elif column.text is None:  # typed whole numbers
        cells = np.where(rows_mask, dividing(column.raw.values), 0)
    else:  # each distinct text read as the column reads it (1,200 under "thousands"), then its row's cell
        parsed, _ = parse_floats(number_texts(np.asarray(column.text, dtype=object),
                                              IntegerColumn(name="_", low=0, high=1, **written)))
        unique = dividing(parsed) if len(parsed) else np.zeros(1, np.int64)
        index = column.raw.index
        cells = np.where(rows_mask & (index >= 0), unique[np.maximum(index, 0)], 0)
    counts = np.asarray(reader.histogram(cells, 3 + steps, epsilon=epsilon, label=f"{name}: {label}"),
                        dtype=np.float64)
    scale = 0.0 if isinstance(reader, _OpenReader) else _scale(epsilon)
    level = scale * math.log((3 + steps) / FALSE_CELL)
    nonzero = float(counts[1:2 + steps].sum())  # a 0 is a multiple of any: it says nothing of the rounding
    for k in range(steps, 0, -1):
        fewer = float(counts[1:1 + k].sum())  # rows that fewer than k of the chain divide
        if fewer + _fewer_deviation(scale, k) <= MULTIPLE_STRAY * min(nonzero, rows) \
                and float(counts[1 + k:2 + steps].sum()) > level:
            return {"multiple": chain[k - 1]}
    return {}


def _fewer_deviation(scale: float, k: int) -> float:
    """A deviation of the noise of :func:`_written_multiple`'s sum of its first ``k`` cells (discrete Laplace of
    scale t: variance about 2 t^2 a cell)."""
    return scale * math.sqrt(2 * k)


def step_pays(epsilon: Fraction, rows: float) -> bool:
    """Whether :func:`_written_step`'s histogram at ``epsilon`` can answer yes at all: :func:`_written_multiple`'s
    test for the first step needs that deviation (k = 1) within :data:`MULTIPLE_STRAY` of ``rows`` (the profile's
    noisy count of the column's date-times; public). Where it cannot, nothing is spent, and the bounds keep the part:
    2,000 last orders at eps 0.5 over 8 columns asked with noise 455 (answerable from 6,400 rows), and their bounds,
    an eighth poorer, stopped paying for refining (session 80)."""
    return _fewer_deviation(_scale(epsilon), 1) <= MULTIPLE_STRAY * rows


def _written_step(name: str, column: _Profiled, reader, epsilon: Fraction, rows_mask: np.ndarray,
                  seconds: np.ndarray, rows: float, chain: Sequence[int]) -> str | None:
    """The ``precision`` ("15 minutes"; or 5, 30 minutes, an hour) where nearly all of a date-time column's values fall
    on that step: :func:`_written_multiple`'s test over ``chain`` on the values' seconds (UTC: a step of an hour reads
    a zone's whole-hour offset alike), at ``epsilon`` (openly: exact), of ``rows`` (as :func:`step_pays`'); None
    otherwise. :data:`CLOCK_STEPS` for a column written to the minute; :data:`MINUTE_STEPS`, the
    whole minute first, for one written with its seconds, so that meter readings written 00:15:00 do not come back
    00:27:41 ("minute" where they fall on whole minutes alone).
    Privacy: (epsilon, 0)-DP, the reader's discrete Laplace histogram over public cells, L1 sensitivity 2 (Thm 3.6's
    discrete analogue; its "step" charge); the choice reads only its noisy counts."""
    found = _written_multiple(name, column, reader, epsilon, rows_mask, {}, rows, values=seconds, label="step",
                              chain=chain)
    return {seconds: step for step, seconds in PRECISIONS.items()}[found["multiple"]] if found else None


def drafted_boolean(name: str, counts: np.ndarray, *, null: bool, other: bool) -> BooleanColumn:
    """A boolean written back in the spelling with the largest noisy count in the profile ``counts`` (public:
    post-processing), true/false (the default words) on a tie, and reading every default word as well: a column of
    Y/N is declared ``"true": ["Y", "true", "t", "yes", "1"]``. A column of typed booleans has only the default
    class (its words are never written)."""
    spelling = max(BOOLEAN_SPELLINGS, key=lambda c: (counts[c], -c))
    true, false = BOOLEAN_SPELLINGS[spelling]
    if (true, false) == (TRUE_WORDS[0], FALSE_WORDS[0]):
        return BooleanColumn(name=name, null=null, other=other)
    return BooleanColumn(name=name, null=null, other=other,
                         true=(true, *(w for w in TRUE_WORDS if w != true.lower())),
                         false=(false, *(w for w in FALSE_WORDS if w != false.lower())))


#: The casings a local spelling is tried in: ja/nein, Ja/Nein, JA/NEIN.
_CASINGS = (str.lower, str.capitalize, str.upper)


def _local_boolean(column: _Profiled, reader, epsilon: Fraction, other: bool) -> BooleanColumn:
    """A boolean written in another language than English (ja/nein, Oui/Non, SÍ/NO): a noisy histogram of its rows'
    words over the public :data:`~dprelease.schema.parse.LOCAL_SPELLINGS` in three casings (one cell a word, one
    for the rest) at ``epsilon``, and the spelling whose true and false words' noisy counts sum largest is written
    back; the column reads every local and English word of each side as well. A German claims export's ``ja`` /
    ``nein`` was drafted as text, spending its part on a stability histogram that loses a side under about 1,500
    rows at eps 0.5 over 12 columns, and an ``other`` bucket (session 65).
    Privacy: (epsilon, 0)-DP, the reader's histogram (its "spelling" charge; L1 sensitivity 2); the choice reads
    only its noisy counts."""
    words = sorted({case(word) for pair in LOCAL_SPELLINGS for word in pair for case in _CASINGS})
    cell_of = {word: 1 + i for i, word in enumerate(words)}
    rows = np.isin(column.row_class, BOOLEAN_CLASSES)
    cells = _text_cells(column, rows, lambda text: cell_of.get(text.strip(), 0) if isinstance(text, str) else 0)
    counts = np.asarray(reader.histogram(cells, 1 + len(words), epsilon=epsilon, label=f"{column.name}: spelling"),
                        dtype=np.float64)
    spellings = [(case(true), case(false)) for true, false in LOCAL_SPELLINGS for case in _CASINGS]
    true, false = max(spellings, key=lambda pair: counts[cell_of[pair[0]]] + counts[cell_of[pair[1]]])

    def side(chosen: str, local: Sequence[str], english: Sequence[str]) -> tuple[str, ...]:
        # the chosen word first (written back), then every other word of the side (read)
        return (chosen, *dict.fromkeys(w for w in (*local, *english) if w != chosen.lower()))

    return BooleanColumn(name=column.name, null=column.has_null, other=other,
                         true=side(true, LOCAL_TRUE_WORDS, TRUE_WORDS),
                         false=side(false, LOCAL_FALSE_WORDS, FALSE_WORDS))


def _scale(epsilon: Fraction) -> float:
    return 2 / float(epsilon) if epsilon else 0.0


#: The standard deviations of its noise by which the profile's stray rows must pass 0 (:func:`has_stray`).
STRAY_DEVIATIONS = 3.0


def has_stray(noisy: np.ndarray, noise: float, conforming: Sequence[int]) -> bool:
    """Whether a column holds rows of a kind it was not drafted as (text in a number column, a date in a boolean
    one), from the profile's noisy class counts ``noisy`` (unclipped) at Laplace scale ``noise``: their sum over the
    k classes neither NULL nor ``conforming`` passes :data:`STRAY_DEVIATIONS` times its noise's standard deviation,
    noise x sqrt(2 k). Each class's noise has mean 0, so the sum's has. Clipped at 0 first, the 14 empty classes of a
    number column (the profile had 18) summed to about 7 scales and passed the old level of 3 sqrt(18) scales in
    5.4 % of drafts (simulated; 4 of 48 of a new user's number and date columns), giving a clean column an
    ``other`` bucket that then wrote ``<other>`` for every value beyond its drafted bounds. Here empty classes pass
    with probability 0.19-0.28 % for k = 6-16 (simulated: a sum of Laplace variables is near normal; Chebyshev
    bounds it by 1/9 whatever the shape). The price: stray rows need about 3 sqrt(2 k) scales, not 6, to be seen
    (21 for a number column of the 27-class profile: each class the profile adds costs power), and below that
    ``synth`` refuses their text by name ("values not numbers (declare other; ...)") before any spend.
    Post-processing of the profile (no budget). At ``noise`` = 0 (an open draft) any stray row counts."""
    stray = [c for c in range(len(noisy)) if c != C_NULL and c not in conforming]
    total = float(np.sum(np.asarray(noisy, dtype=np.float64)[stray]))
    return bool(total > STRAY_DEVIATIONS * noise * np.sqrt(2 * len(stray)))


def _visible(counts: np.ndarray, noise: float) -> np.ndarray | None:
    """The noisy class counts that pass noise x ln(#classes / 0.001) (an empty class does with probability
    <= 0.001 in all), the others as 0; None when no non-NULL class passes (a table too small for its epsilon)."""
    visible = np.where(counts > noise * np.log(len(counts) / FALSE_CELL), counts, 0.0)
    return visible if visible.sum() - visible[C_NULL] > 0 else None


def _counted(counts: np.ndarray, noise: float) -> np.ndarray:
    """The profile's noisy class counts as :func:`_kind` reads them: those that stand out of the noise
    (:func:`_visible`), or all of them where none does (a small table)."""
    visible = _visible(counts, noise)
    return counts if visible is None else visible


def _kind(counts: np.ndarray, noise: float = 0.0, written: Mapping[str, object] | None = None) -> str:
    """The kind most non-NULL values look like, among the classes the noise cannot have made: a class
    counts when its noisy count passes noise x ln(#classes / 0.001) (an empty one with probability <= 0.001
    in all). Without it, the empty classes' clipped noise (about noise / 2 rows each) swelled the
    denominator: a 6,000-row column of decimals came out categorical at epsilon 0.5 over 9 columns. When no
    class passes (a small table), all the noisy counts decide, as they are. Integers are chosen only where no
    decimal stands out of the noise: an integer column drops a decimal into ``other``, so a column of 97 % zeros
    ("0.0") and 3 % amounts (1,800 of 60,000 rows) would lose every amount; numeric bins hold integers too.
    Text counts where it passes noise x ln(1 / 0.001), the bar of one class asked alone: what a number kind
    would lose is asked about text in particular.
    ``written``: :func:`_written` of the same counts (the profile computes it once for both)."""
    visible = _visible(counts, noise)
    decimals_seen = visible is not None and visible[list(DECIMAL_CLASSES)].sum() > 0
    written = _written(counts, noise) if written is None else written
    raw, counts = counts, _counted(counts, noise)
    if visible is not None and raw[C_TEXT] > noise * np.log(1 / FALSE_CELL) > counts[C_TEXT]:
        # Text asked alone (one class: an empty one passes with probability <= 0.001), since a number kind is what
        # it would cost: postcodes 021 and 007 in a quarter of 8,000 rows (the rest 100, 606, ...) fell under the
        # 33 classes' bar in a quarter of drafts at eps 0.5 over 11 columns, and were drafted as integers 100..999.
        counts = counts.copy()
        counts[C_TEXT] = raw[C_TEXT]
    if visible is not None and raw[C_LEADING_ZERO] > noise * np.log(1 / FALSE_CELL):
        # numbers written with a leading zero, asked alone as text is: whole numbers written to a width beside
        # whole numbers without one (a postcode column, 9 % of whose codes start with 0) are an integer column
        # written with its digits (:func:`zero_padded`); alone, or beside text, they are codes (text)
        counts = counts.copy()
        counts[C_INTEGER if zero_padded(raw, noise) else C_TEXT] += raw[C_LEADING_ZERO] - counts[C_LEADING_ZERO]
        counts[C_LEADING_ZERO] = 0
    present = counts.sum() - counts[C_NULL]
    if present <= 0:
        return "categorical"
    share = lambda *classes: sum(counts[c] for c in classes) / present  # noqa: E731
    if share(*BOOLEAN_CLASSES) >= KIND_SHARE:
        return "boolean"
    if share(C_COMPACT_DATE) >= KIND_SHARE:
        return "categorical"  # dates written 20240301: text, whose format :func:`_written_date` finds
    if share(*INTEGER_CLASSES) >= KIND_SHARE and not decimals_seen:
        return "integer"  # (eight-digit numbers that are not all dates are integers)
    if share(*INTEGER_CLASSES, *DECIMAL_CLASSES) >= KIND_SHARE:
        return "numeric"
    if written and share(*INTEGER_CLASSES, *DECIMAL_CLASSES,
                         C_COMMA if written.get("decimal") == "," else C_GROUPED) >= KIND_SHARE:
        return "numeric"  # 1,234.50 or 3,5: numeric (a whole 1,234 is not told from 1,234.5 by its class)
    if share(C_DATE) >= KIND_SHARE:
        return "date"
    if share(C_DATE, *DATETIME_CLASSES) >= KIND_SHARE:
        return "datetime"
    return "categorical"


def zero_padded(counts: np.ndarray, noise: float) -> bool:
    """Whether a column's whole numbers are written to a fixed width, zero-padded: its numbers written with a leading
    zero (02134) pass noise x ln(1 / 0.001), the bar of one class asked alone, beside whole numbers without one that
    stand out of the noise (:func:`_visible`), and no decimal does. Then an integer column reads them as numbers and
    writes its values back with as many ``digits`` as its high bound has (a US ZIP code column, 8 % of whose codes
    start with 0, came back with those codes clipped to its low bound and every value written without its zeros).
    Post-processing of the noisy profile (openly, noise 0: any such row)."""
    visible = _visible(counts, noise)
    if visible is None or counts[C_LEADING_ZERO] <= noise * np.log(1 / FALSE_CELL):
        return False
    return bool(visible[list(INTEGER_CLASSES)].sum() > 0 and visible[list(DECIMAL_CLASSES)].sum() == 0)


def _time_of_day(column: _Profiled, reader, epsilon: Fraction) -> tuple[_Profiled, np.ndarray, bool]:
    """A column of dates written another way (the profile found the date's format, :func:`_written_date`): which time
    of day its values carry (:data:`TIME_VARIANTS`: none, or one of four clocks) and whether their years have four
    digits or two (31.03.22: ``%y``, session 65), by the largest count of a noisy histogram over those variants at
    ``epsilon`` (cell 0: the rows of no variant: NULL, or other classes; L1 sensitivity 2, as the profile's). Returns
    the column with its full format and kind (datetime where a clock won, unless the kind was declared), the rows
    that read by that format, and whether the other variants' rows stand out of the noise (then the column takes
    ``other``, :func:`has_stray`). Public: post-processing of the histogram."""
    family = DATE_FORMAT_CLASSES[column.found_format]
    in_family = np.isin(column.row_class, family)
    variant = np.where(in_family, time_variants(column.text)[np.maximum(column.raw.index, 0)], 0)
    clocks = len(TIME_VARIANTS)
    noisy = np.asarray(reader.histogram(variant, 1 + 2 * clocks, epsilon=epsilon,
                                        label=f"{column.name}: time of day"), dtype=np.float64)
    alone = column.found_format == ""  # a time of day alone always has a clock (and no year): one of the four
    chosen = 2 + int(np.argmax(noisy[2:1 + clocks])) if alone else 1 + int(np.argmax(noisy[1:]))
    clock, short_year = (chosen - 1) % clocks, chosen > clocks
    kind = "datetime" if alone or not column.declared and clock > 0 else column.kind
    date_format = column.found_format.replace("%Y", "%y") if short_year else column.found_format
    timed = replace(column, kind=kind, text_format=(date_format + TIME_VARIANTS[clock]).strip())
    return timed, in_family & (variant == chosen), has_stray(noisy, _scale(epsilon), (chosen,))


def _written_date(counts: np.ndarray, noise: float) -> tuple[str | None, str | None]:
    """The format of a column whose non-NULL values are dates written another way than ISO (``KIND_SHARE`` of them
    in one of :data:`DATE_FORMAT_CLASSES`' ways, among the classes that stand out of the noise), as (format, None).
    Slash dates with the year last read day first where values with a first field above 12 stand out and none with
    a second, month first the other way round; where neither or both stand out the order is not told, and the
    answer is (None, "neither") or (None, "both"). (None, None): not such dates. Post-processing of the noisy
    profile; nothing is guessed from a table too small to show a class."""
    visible = _visible(counts, noise)
    if visible is None:
        return None, None
    present = visible.sum() - visible[C_NULL]
    share = lambda *classes: sum(visible[c] for c in classes) / present  # noqa: E731
    for text_format in ("%d.%m.%Y", "%Y/%m/%d", "", *CLOCKLESS_FORMATS):  # "": a time of day alone
        if share(*DATE_FORMAT_CLASSES[text_format]) >= KIND_SHARE:
            return text_format, None
    if share(C_DAY_FIRST_DATE, C_MONTH_FIRST_DATE, C_SLASH_DATE) < KIND_SHARE:
        return None, None
    day_first, month_first = visible[C_DAY_FIRST_DATE] > 0, visible[C_MONTH_FIRST_DATE] > 0
    if day_first != month_first:
        return ("%d/%m/%Y" if day_first else "%m/%d/%Y"), None
    return None, "both" if day_first else "neither"


def written_datetime(counts: np.ndarray) -> dict[str, str]:
    """How a datetime column's text is written back, from its profile's noisy counts (post-processing): with a space
    where more values use one than a ``T`` (2023-07-27 05:58:00), in UTC marked ``Z`` where more values carry a
    UTC offset than not (the synthetic instants are read in UTC: without the mark they would pass for local times),
    and to the minute where more values are written without their seconds (2023-07-27 05:58, a till's export, came
    back 05:58:41 in every synthetic row; session 78)."""
    total = lambda classes: sum(counts[c] for c in classes)  # noqa: E731
    plain = [c for c in DATETIME_CLASSES if c not in SPACED_CLASSES]
    naive = [c for c in DATETIME_CLASSES if c not in ZONED_CLASSES]
    seconds = [c for c in DATETIME_CLASSES if c not in MINUTE_CLASSES]
    return {**({"separator": " "} if total(SPACED_CLASSES) > total(plain) else {}),
            **({"offset": "Z"} if total(ZONED_CLASSES) > total(naive) else {}),
            **({"precision": "minute"} if total(MINUTE_CLASSES) > total(seconds) else {})}


def _written(counts: np.ndarray, noise: float) -> dict[str, object]:
    """How a column writes its numbers, from the classes that stand out of the profile's noise: grouped (1,234.50,
    $99, 12%) -> ``thousands`` "," and the public :data:`DRAFT_SYMBOLS`; comma (3,5, 1.234,5) -> ``decimal`` ","
    (its thousands are then "."), with the symbols; the larger wins where both do; {} where neither does."""
    visible = _visible(counts, noise)
    if visible is None or max(visible[C_GROUPED], visible[C_COMMA]) <= 0:
        return {}
    if visible[C_COMMA] > visible[C_GROUPED]:
        return {"decimal": ",", "symbols": list(DRAFT_SYMBOLS)}
    return {"thousands": ",", "symbols": list(DRAFT_SYMBOLS)}


def _written_words(written: Mapping[str, object]) -> str:
    return ("with a decimal comma (3,5; 1.234,5)" if written.get("decimal") == ","
            else "with thousands separators or signs (1,234.50; $99; 12%)")


def _values(kind: str, raw, text, conforming_rows: np.ndarray, written: Mapping[str, object] | None = None,
            text_format: str | None = None) -> np.ndarray:
    """The parsed values of the rows that look like ``kind`` (floats, or integer days / seconds), numbers read as
    ``written`` says (the same rule the encoder applies, :func:`~dprelease.schema.binned.number_text`)."""
    if isinstance(raw, TypedColumn):
        values = raw.datetimes(kind)
        if values.dtype.kind == "M":
            values = datetimes_to_int(values, "D" if kind == "date" else "s")
        return values[conforming_rows].astype(np.float64 if kind in ("integer", "numeric") else np.int64)
    if kind in ("date", "datetime") and text_format is not None:
        parsed, _ = parse_formatted_times(text, text_format, "D" if kind == "date" else "s")
    elif kind in ("date", "datetime"):
        parsed, _ = parse_times(text, "D" if kind == "date" else "s")
    elif written:  # read as the drafted column will be: a column declaring only the format carries it
        parsed, _ = parse_floats(number_texts(text, NumericColumn(name="_", edges=(0.0, 1.0), **written)))
    else:
        parsed, _ = parse_floats(text)
    values = parsed[raw.index[conforming_rows]]
    if kind == "integer" and written:  # a declared integer column: its grouped decimals are not integers
        values = values[np.isfinite(values) & (values == np.floor(values))]
    return values


#: The width of the decimals' bounds cells next to 0 (:func:`_cell_edges`): bounds of that one cell hold 0 alone.
ZERO_CELL = 1e-3


def _cell_edges(integer: bool, years: bool = True) -> np.ndarray:
    """Public cells for the bounds: edges 0 and +-m 10^e (m = 1..9; e = -3..15, e >= 0 for integers),
    with -inf and +inf outside, so every value has a cell. For integers in ``years`` (:attr:`_Profiled.in_years`), the
    cells 1000-1999 and 2000-2999 are split where years live: a century each from 1000 to 1899 and from 2100 to 2999,
    a year each from 1900 to 2099, as a date's cells are (:data:`_DATE_CELL_STARTS`): years 2019-2023 were drafted as
    2000..2999 and birth years as 1000..1999, so every synthetic year was spread over a century (and the refining
    that would narrow them needs 100,000 rows at epsilon 0.5). Not where the whole numbers are mostly elsewhere: a
    new user's ride durations (100-13,000 seconds, 1,198 of 60,000 rows in 1900-2099) were clipped at 1899 on 3
    seeds of 8 (8 % of the rows), the hundred one-year cells' summed noise hiding the 1900s (session 70)."""
    positive = np.unique(np.outer(np.arange(1, 10), 10.0 ** np.arange(0 if integer else round(math.log10(ZERO_CELL)),
                                                                       16)).ravel())
    negative = -positive[::-1]
    if integer and years:  # years are positive
        positive = np.union1d(positive, np.concatenate([np.arange(1000.0, 1900.0, 100.0), np.arange(1900.0, 2100.0),
                                                        np.arange(2100.0, 3000.0, 100.0)]))
    return np.concatenate([[-np.inf], negative, [0.0], positive, [np.inf]])


def _run_group(low: float, high: float, is_year: bool, has_years: bool) -> tuple:
    """Which group of runs a finite cell [low, high) belongs to (:func:`_decade_runs`): a one-year cell its decade of
    years; any other its decade [10^e, 10^(e+1)) by sign, split at the years where the cells have them (the
    centuries below them apart from the cells above)."""
    if is_year:
        return "years", low // 10
    sign = 1.0 if low >= 0 else -1.0
    power = math.floor(math.log10(low if low > 0 else -high))
    return sign, power, has_years and sign > 0 and power == 3 and high > 2000


def _decade_runs(edges: np.ndarray) -> list[tuple[int, int]]:
    """Runs of :func:`_cell_edges`' cells within a decade, [10^e, 10^(e+1)) or [-10^(e+1), -10^e) (an integer's
    years within their decade, 1970-1979, and the centuries 1000-1899 apart from 2100-9999), as (first, last) cell
    indexes: each group's prefixes and suffixes of 2 or more cells (public). Near 0 the cells are narrow:
    hours 0..23 put most rows in one-hour cells that may each fall short of the threshold while a run of them does
    not. A run below (above) the passing cells widens the lower (upper) bound to its own first (last) cell
    (:func:`_bounds`)."""
    runs = set()
    for cells in _decade_groups(edges).values():
        if len(cells) >= 2:
            runs.update(_prefixes_and_suffixes(cells[0], cells[-1]))
    return sorted(runs)


def _decade_groups(edges: np.ndarray) -> dict[tuple, list[int]]:
    """The finite cells of ``edges`` by :func:`_run_group` (0's cell in none), in order. Public: the cells alone."""
    groups: dict[tuple, list[int]] = {}
    years = _year_cells(edges)  # an integer's cells have them (:func:`_cell_edges`)
    for cell in range(len(edges) - 1):
        low, high = float(edges[cell]), float(edges[cell + 1])
        if np.isfinite(low) and np.isfinite(high) and low != 0.0 and high != 0.0:
            groups.setdefault(_run_group(low, high, bool(years[cell]), bool(years.any())), []).append(cell)
    return groups


def _whole_decades(edges: np.ndarray) -> tuple[tuple[int, int], ...]:
    """The decades of a number's cells that the bounds may reach across a gap (:func:`_next_decade`), as (first, last)
    cell indexes: each group of :func:`_decade_groups` of 2 or more cells and no one-year cell. Public."""
    years = _year_cells(edges)
    return tuple((cells[0], cells[-1]) for cells in _decade_groups(edges).values()
                 if len(cells) >= 2 and not years[cells].any())


def _other_tests(edges: np.ndarray, runs: Sequence[tuple[int, int]], wide: Sequence[tuple[int, int]]) -> int:
    """How many of the bounds' tests (cells, runs, wide cells) lie outside the cells' years (:func:`_year_cells`;
    all of them where there are none: decimals, dates): the count a cell's threshold outside them follows
    (:func:`_bounds`). Public."""
    years = _year_cells(edges)
    if not years.any():
        return len(edges) - 1 + len(runs) + len(wide)
    return int((~years).sum()) + sum(not years[start] for start, _ in runs)


def _year_cells(edges: np.ndarray) -> np.ndarray:
    """Which of ``edges``' cells are one year, 1900-2099: an integer's (:func:`_cell_edges`); none of a decimal's
    or a date's (whose years are 365 or 366 days wide). Public."""
    low, high = edges[:-1], edges[1:]
    with np.errstate(invalid="ignore"):
        return (high - low == 1) & (low >= 1900) & (low < 2100)


def _year_groups(edges: np.ndarray, starts: Sequence[float]) -> list[tuple[int, int]]:
    """The wide cells made of ``edges``' cells, one per span [start, next start) of ``starts`` (an integer's
    1000-1999 and 2000-2999, a date's twentieth and twenty-first centuries), as (first, last) cell indexes: the cells
    the bounds' histogram would have without its one-year cells (:func:`_bounds`). Public."""
    groups = []
    for low, high in zip(starts[:-1], starts[1:]):
        inside = np.flatnonzero((edges[:-1] >= low) & (edges[1:] <= high))
        groups.append((int(inside[0]), int(inside[-1])))
    return groups


def _prefixes_and_suffixes(first: int, last: int) -> list[tuple[int, int]]:
    """The runs (first cell, last cell) of 2 or more of the cells first..last that hold one of the two ends."""
    return [(first, first + j) for j in range(1, last - first + 1)] + [(last - j, last) for j in range(1, last - first)]


@functools.lru_cache(maxsize=4096)  # public arguments; one column tests its 500-850 runs at a few sizes
def _sum_threshold(epsilon: Fraction, cells: int, tests: int) -> float:
    """The rows a sum of ``cells`` noisy cells must pass so that, with every cell empty, it does with probability
    <= FALSE_CELL / ``tests``: the Chernoff bound min over 0 < lam < 1/t of e^(-lam x) M(lam)^cells, M the discrete
    Laplace's moment generating function (1 - p)^2 / ((1 - p e^lam)(1 - p e^-lam)), p = e^(-1/t). Any lam gives a
    valid bound; a grid of them finds a tight one. For one cell the exact tail, :func:`_threshold`, is tighter."""
    t = _scale(epsilon)
    p = math.exp(-1 / t)
    target = math.log(tests / FALSE_CELL)
    best = math.inf
    for u in np.linspace(0.01, 0.99, 99):  # lam = u / t
        lam = u / t
        log_mgf = 2 * math.log1p(-p) - math.log1p(-p * math.exp(lam)) - math.log1p(-p * math.exp(-lam))
        best = min(best, (cells * log_mgf + target) / lam)
    return best


def _bounds(name, values, reader, epsilon, edges, integer, runs=(), passed_out: list[int] | None = None,
            counts_out: list[float] | None = None,
            wide=(), rows: float = math.inf, cut_out: list[str] | None = None,
            edge_out: list[str] | None = None, unwalked_out: list[float] | None = None,
            decades: Sequence[tuple[int, int]] = ()) -> tuple[float, float] | None:
    """Bounds from a noisy histogram over public cells: the outer edges of the first and last cells whose
    noisy count passes the threshold T = t ln(#tests / 0.001), t = 2 / epsilon the noise scale (ApproxBounds,
    Wilson et al. 2020), widened to the outer edge of any of the ``runs`` of cells within a decade
    (:func:`_decade_runs`) that lies wholly below (above) those cells and whose noisy sum passes its own threshold
    (:func:`_sum_threshold`); #tests counts the cells and the runs. A run that holds a passing cell does not widen:
    its sum may be that cell's, and its far edge (99 for hours 0..23) would decode rows far past the data. Openly,
    the exact minimum and maximum. None when no cell passes: the noise then
    hides every cell, and the fullest noisy one (the rule before) was noise's choice among ~290 empty cells
    ([90000000, 99999999] for integers 0..100 on most seeds), not evidence.

    An integer's years 1900-2099 are cells of one year each, in two ``wide`` cells (1000-1999, 2000-2999) that stand
    out by their cells' noisy sum as a run does, or by a run inside them that passed, and are cut inward where they
    look empty (:func:`_wide_cut`), at most up to the evidence of rows nearest that edge (:func:`_anchor`); a side
    still at a wide cell's edge then walks on past it (:func:`_next_cells`). Their tests (the year cells, their runs,
    the wide cells) are a group of their own in the union bound, so the other cells keep their threshold; a wide
    cell standing by a run adds no test (the run's pass is one already counted).

    The threshold's error rates (discrete Laplace: P(Z >= k) = e^{-k/t} / (1 + e^{-1/t}) <= e^{-k/t}, k >= 1):
    an empty cell passes with probability <= e^{-T/t} = 0.001 / #tests, an empty run likewise (the Chernoff bound),
    so any of them does with probability <= FALSE_CELL = 0.001 (union bound; per group: 0.002 for an integer's
    years and other cells together); a cell holding m > T rows fails with
    probability <= e^{-(m - T)/t}. The runs are post-processing of the same noisy counts: they cost nothing.
    E.g. 500 rows at epsilon 1 over 6 columns (bounds epsilon 0.075, t = 26.7; an integer's 306 cells and 505 runs
    outside its years, T = 363):
    a cell of 500 rows passes with probability >= 0.998 -- but integers 0..100 spread over 11 cells of about
    45 rows, and none passes.

    ``unwalked_out``: gets the high bound before any walk over the cells next to it (the upper edge of the last cell
    or run that stood out), public. ``decades``: the groups of cells a walk may reach across a gap
    (:func:`_whole_decades`; none for dates).

    Privacy: (epsilon, 0)-DP, the reader's histogram; the choice (including None) reads only its noisy counts.
    """
    cells = np.clip(np.searchsorted(edges, values, side="right") - 1, 0, len(edges) - 2)
    counts = np.asarray(reader.histogram(cells, len(edges) - 1, epsilon=epsilon, label=f"{name}: bounds"))
    if counts_out is not None:  # the noisy counts (public), for the bins where quantiles cannot see
        counts_out.extend(float(c) for c in counts)
    if isinstance(reader, _OpenReader):
        if len(values) == 0:
            return 0.0, 0.0
        return float(np.min(values)), float(np.max(values))
    # the tests in the union bound: an integer's years (its one-year cells, their runs and the wide cells) apart from
    # its other cells and runs, each group at FALSE_CELL, so that the years do not raise the other cells' threshold
    # (a date's cells are one group)
    years = _year_cells(edges)
    in_years = [bool(years[start]) for start, _ in runs]
    other_tests = _other_tests(edges, runs, wide)
    year_tests = len(edges) - 1 + len(runs) + len(wide) - other_tests
    tests = np.where(years, year_tests, other_tests)  # a cell's group's count
    passed = np.flatnonzero(counts > _scale(epsilon) * np.log(tests / FALSE_CELL))
    if passed_out is not None:  # the cells that stood out, for a note (public: post-processing)
        passed_out.extend(int(i) for i in passed)
    # the runs whose noisy sums pass their own union-bound level (:func:`_sum_threshold`; tests already counted)
    run_passed = [(start, end) for (start, end), year_run in zip(runs, in_years)
                  if counts[start:end + 1].sum() > _sum_threshold(epsilon, end - start + 1,
                                                                  year_tests if year_run else other_tests)]
    # a wide cell (:func:`_year_groups`) stands out by its cells' noisy sum, as a run does, or by a run inside it that
    # passed (hire dates over 2005-2025 at 290 rows a year: no year stood out, the century's 6,000 rows stood out on
    # half the seeds, the decade 2010-2019 on all)
    wide_tests = year_tests if years.any() else other_tests
    standing = [(first, last) for first, last in wide
                if counts[first:last + 1].sum() > _sum_threshold(epsilon, last - first + 1, wide_tests)
                or any(first <= start and end <= last for start, end in run_passed)]
    spans = [(int(i), int(i)) for i in passed] + standing
    if not spans:  # nothing stands out of the noise: no bounds (the caller leaves them to the user)
        return None
    first, last = min(first for first, _ in spans), max(last for _, last in spans)
    outer_first, outer_last = first, last
    for start, end in run_passed:  # see :func:`_decade_runs`
        if end < first or start > last:
            outer_first, outer_last = min(outer_first, start), max(outer_last, end)
    if unwalked_out is not None:
        unwalked_out.append(float(edges[outer_last + 1]))
    # a side set by a cell that stood out alone (not a run, not a wide cell) walks on over the cells next to it that
    # pass the lower level of one test (:func:`_next_cells`), and across a gap to a decade beyond it whose noisy sum
    # passes its own lower level (:func:`_next_decade`)
    wide_ends = {f for f, _ in standing} | {l for _, l in standing}
    finite_cells = np.isfinite(edges[:-1]) & np.isfinite(edges[1:])
    width = np.diff(edges)
    if outer_first == first and first not in wide_ends:
        outer_first = _walk_out(counts, finite_cells, first, -1, epsilon, rows, width, decades)
    if outer_last == last and last not in wide_ends:
        outer_last = _walk_out(counts, finite_cells, last, +1, epsilon, rows, width, decades)
    # a wide cell at an end is cut inward over its own cells (:func:`_wide_cut`), at most up to a cell that stood
    # out alone (or the other end)
    reach = (outer_first, outer_last)  # before the cut: the wide cells' edges where they set the bounds
    low_wide = [(f, l) for f, l in standing if f == outer_first]
    high_wide = [(f, l) for f, l in standing if l == outer_last]
    (cut_low, held_low), (cut_high, held_high) = (0, 0.0), (0, 0.0)
    if low_wide:
        f, l = low_wide[0]
        stop, evidence, alone = _anchor(counts, width, passed, run_passed, f, l, -1)
        cut_low, held_low = _wide_cut(counts[f:stop], width[f:stop], epsilon, rows, counts[f:l + 1].sum(), evidence,
                                      alone)
    if high_wide:
        f, l = high_wide[0]
        stop, evidence, alone = _anchor(counts, width, passed, run_passed, f, l, +1)
        cut_high, held_high = _wide_cut(counts[stop + 1:l + 1][::-1], width[stop + 1:l + 1][::-1], epsilon, rows,
                                        counts[f:l + 1].sum(), evidence, alone)
    if outer_first + cut_low <= outer_last - cut_high:  # else the cuts met: the noise's doing, cut nothing
        outer_first, outer_last = outer_first + cut_low, outer_last - cut_high
        # a cut side walks back out over the cells it cut where they hold rows after all (:func:`_next_cells`), never
        # past the wide cell's edge: birth dates at 45 rows a year, cut whole up to the first year that stood out
        inside = finite_cells & (np.arange(len(finite_cells)) >= reach[0]) & (np.arange(len(finite_cells)) <= reach[1])
        if cut_low:
            outer_first = _next_cells(counts, inside, outer_first, -1, epsilon, rows, width)
        if cut_high:
            outer_last = _next_cells(counts, inside, outer_last, +1, epsilon, rows, width)
        if cut_out is not None and max(held_low, held_high) > 0:  # a tail cut (public), for a note with its most
            cut_out.append(f"{name!r} (up to about {max(held_low, held_high):,.0f} rows)")
    # a side still at its wide cell's edge (rows reach it) walks on past it (:func:`_next_cells`): founding years
    # 1850-2025, 63 % of them from 2000, drafted as 2000..2089 where the years before 2000 did not stand out together
    if low_wide and outer_first == low_wide[0][0]:
        outer_first = _next_cells(counts, finite_cells, outer_first, -1, epsilon, rows, width)
    if high_wide and outer_last == high_wide[0][1]:
        outer_last = _next_cells(counts, finite_cells, outer_last, +1, epsilon, rows, width)
    # bounds that reached the edge between two wide cells (..1999 | 2000..) and stayed near it (not cut, or cut as a
    # tail), whose other side did not stand out: the data may go on there in fewer rows than that wide cell needs
    # (births 2000-2015, 14 % of a 12,000-row table; public)
    emptied = (cut_low > 0 and held_low == 0, cut_high > 0 and held_high == 0)  # cut whole: no data near the edge
    for (f1, l1), (f2, l2) in zip(wide, wide[1:]):
        beyond = (f2, l2) if reach[1] == l1 and not emptied[1] and outer_last <= l1 else \
            (f1, l1) if reach[0] == f2 and not emptied[0] and outer_first >= f2 else None
        if edge_out is not None and beyond is not None and beyond not in standing:
            needed = _sum_threshold(epsilon, beyond[1] - beyond[0] + 1, wide_tests)
            year = int(edges[f2]) if years.any() else np.datetime64(int(edges[f2]), "D").astype(object).year
            side = f"{year} on" if beyond == (f2, l2) else f"before {year}"
            edge_out.append(f"{name!r} ({side}: about {needed:,.0f} rows)")
    finite = edges[np.isfinite(edges)]
    low = float(np.clip(edges[outer_first], finite[0], finite[-1]))
    high = float(np.clip(edges[outer_last + 1], finite[0], finite[-1]))
    return low, (high - 1 if integer and high > low else high)


def _anchor(counts: np.ndarray, width: np.ndarray, passed: Sequence[int], run_passed: Sequence[tuple[int, int]],
            first: int, last: int, side: int) -> tuple[int, tuple[float, float] | None, bool]:
    """Where the cut of the wide cell ``first``..``last`` from its low (``side`` -1) or high (+1) edge must stop, and
    the rows a cell and the width of the evidence there (None: none inside, the cut may run to the other edge): the
    cell that stood out alone nearest that edge, or a run that passed nearer it than any such cell and does not hold
    one (its sum is then its own rows). Of the runs, the one whose far end (from the edge) is nearest the edge, the
    shortest of those; the cut stops at its near end, since a run says only that rows lie somewhere in it (the hire
    dates' 2020-2029 holds 2020-2025: the bound is 2029, not 2020 with 2021-2025 clipped). Returns the stop (for the
    low side the first cell kept, for the high side the last; ``last`` + 1 or ``first`` - 1 where nothing is
    inside), the evidence's rows and width per cell, and whether it is a cell alone. Public: noisy counts."""
    alone = [i for i in passed if first <= i <= last]
    cell = (alone[0] if side < 0 else alone[-1]) if alone else None
    inside = [(s, e) for s, e in run_passed if first <= s and e <= last
              and (cell is None or (e < cell if side < 0 else s > cell))]
    if inside:
        s, e = min(inside, key=lambda r: (r[1], r[1] - r[0])) if side < 0 else \
            min(inside, key=lambda r: (-r[0], r[1] - r[0]))
        per_cell = (float(counts[s:e + 1].sum()) / (e - s + 1), float(width[s:e + 1].sum()) / (e - s + 1))
        return (s if side < 0 else e), per_cell, False
    if cell is not None:
        return cell, (float(counts[cell]), float(width[cell])), True
    return (last + 1 if side < 0 else first - 1), None, False


#: How rarely an empty cell next to the bounds passes the level that widens them by that cell, how rarely any run of
#: NEXT_RUNS such cells passes its own (:func:`_next_cells`), and those runs' lengths (2-10 cells, then up to a
#: century of years: archive dates 1890-1959, 29 rows a year beyond the decade 1890-1899 that stood out, were clipped
#: to 1899).
NEXT_CELL_FALSE = 0.05
NEXT_RUN_FALSE = 0.05
NEXT_RUNS = (*range(2, 11), 15, 20, 30, 50, 100)
EQUAL_RUN = 10


def _next_cells(counts: np.ndarray, finite: np.ndarray, end: int, step: int, epsilon: Fraction, rows: float,
                widths: np.ndarray | None = None) -> int:
    """The bound's cell moved outward from ``end`` (by ``step``, -1 below, +1 above) over each next finite cell whose
    noisy count passes t ln(1 / NEXT_CELL_FALSE), t the noise scale, until one does not. The union-bound threshold
    that a cell must pass to set bounds on its own guards against any of ~800 empty cells anywhere (t ln(811 /
    0.001), about 1,460 rows at epsilon 0.019); a cell next to the bounds is one test per side, and an empty one
    that passes (with probability <= NEXT_CELL_FALSE) widens the bounds by one cell and clips nothing, while one
    that holds data and is refused clips it: ages 18-97 over 15,000 rows drafted as 40..79 (the cells 30-39 and
    80-89 held about 1,500 and 1,000 rows), clipping 18 % of them to 40. Where no next cell passes alone, a run of
    :data:`NEXT_RUNS` next cells whose noisy sum passes its Chernoff level (:func:`_sum_threshold`; any empty run does
    with probability at most NEXT_RUN_FALSE) widens them by the shortest such run: birth dates at 45 rows a year
    beyond the first year that stood out. Both rates are 0.05 (session 63; 0.005 before): on
    benchmarks/bench_draft_bounds.py's three tables, 6 seeds, the mean clipped share fell from 1.6 / 2.6 / 0.9 % to
    1.1 / 1.7 / 0.8 % (0.02: 1.4 / 2.0 / 0.9 %) and the Kolmogorov-Smirnov distance a little, for an empty cell past
    the data on about one side in twenty (hours 0..23 drafted to 39 on 1 seed of 30, where 29 was the most before),
    which costs most where the data are narrow inside a wide cell: longitudes -87.9..-87.5 drafted -100..-80, not
    -90..-80, on one seed's noise, decode 6 standard deviations off, not 2. Public: the noisy counts."""
    floor = REFINE_CUT * rows
    levels = [(1, max(_scale(epsilon) * math.log(1 / NEXT_CELL_FALSE), floor))] + [
        (k, max(_sum_threshold(epsilon, k, len(NEXT_RUNS) * FALSE_CELL / NEXT_RUN_FALSE), floor)) for k in NEXT_RUNS]
    cell = end
    while run := _passing_run(counts, finite, cell, step, levels, widths):
        cell += step * run
    return cell


#: How many decades past the end of a walk the bounds test for rows across a gap (:func:`_next_decade`), and how
#: rarely any of them passes its level where all are empty. Five reach from 0 to 1-9.99 over a decimal's
#: thousandths, hundredths and tenths, and to 10,000-99,999 over an integer's ones, tens, hundreds and thousands.
NEXT_DECADES = 5
NEXT_DECADE_FALSE = 0.01


def _walk_out(counts: np.ndarray, finite: np.ndarray, end: int, step: int, epsilon: Fraction, rows: float,
              widths: np.ndarray, decades: Sequence[tuple[int, int]]) -> int:
    """The bound's cell moved outward from ``end`` (``step`` -1 below, +1 above): over the next cells
    (:func:`_next_cells`), then, while a decade beyond passes (:func:`_next_decade`), to that decade's far edge and
    over the cells next to it again. Public: the noisy counts."""
    cell = _next_cells(counts, finite, end, step, epsilon, rows, widths)
    while (far := _next_decade(counts, cell, step, epsilon, rows, decades)) is not None:
        cell = _next_cells(counts, finite, far, step, epsilon, rows, widths)
    return cell


def _next_decade(counts: np.ndarray, cell: int, step: int, epsilon: Fraction, rows: float,
                 decades: Sequence[tuple[int, int]]) -> int | None:
    """The far edge's cell of the nearest of the :data:`NEXT_DECADES` ``decades`` wholly past ``cell`` (by ``step``)
    whose noisy sum passes its Chernoff level (:func:`_sum_threshold`), such that where every one of them is empty
    any passes with probability at most :data:`NEXT_DECADE_FALSE`; None where none does. The walk
    (:func:`_next_cells`) steps only over the cells next to the bounds, and next to 0's cell lie a decimal's narrow
    thousandths: late fees of $0.00 on 81 % of 9,000 rows and $0.25-$9.75 on the rest (1,660 rows in 1-9.99, under
    that decade's union-bound level) were drafted as the one value 0 on 3 of 4 seeds, and Adult's capital gains
    (92 % 0, 1,887 rows in 1,000-9,999) likewise, clipping 8 % of the rows. The gap between is taken into the bounds
    unseen: it widens them and clips nothing. An empty decade taken costs more than an empty cell (a span ten times
    the data's), hence a rate a fifth of :data:`NEXT_CELL_FALSE`'s. Public: the noisy counts and cells."""
    beyond = sorted((d for d in decades if (d[0] > cell if step > 0 else d[1] < cell)),
                    key=lambda d: d[0] * step)[:NEXT_DECADES]
    floor = REFINE_CUT * rows
    for first, last in beyond:
        level = max(_sum_threshold(epsilon, last - first + 1, NEXT_DECADES * FALSE_CELL / NEXT_DECADE_FALSE), floor)
        if counts[first:last + 1].sum() > level:
            return last if step > 0 else first
    return None


def _passing_run(counts: np.ndarray, finite: np.ndarray, cell: int, step: int,
                 levels: Sequence[tuple[int, float]], widths: np.ndarray | None = None) -> int:
    """How many of the cells past ``cell`` (by ``step``) the bounds take: the shortest run of them among the
    ``levels``' lengths whose noisy sum passes that length's level; 0 where none does (a run that would leave the
    finite cells is not tried). A run longer than :data:`EQUAL_RUN` only over cells of one width (``widths``; years,
    not a number's cells, where 100 of them span ten powers of ten: amounts drafted down to -90,000 once an empty
    run of them passed). Public: the noisy counts and cells."""
    for k, level in levels:
        ahead = cell + step * k
        if not 0 <= ahead < len(counts):
            return 0
        span = slice(min(cell + step, ahead), max(cell + step, ahead) + 1)
        if not finite[span].all():
            return 0
        if k > EQUAL_RUN and (widths is None or widths[span].max() > 1.01 * widths[span].min()):
            return 0
        if counts[span].sum() > level:
            return k
    return 0


#: The cut of a wide cell inward (:func:`_wide_cut`): how many deviations of a run's noise a cut run may hold
#: besides its share; how many the whole stretch beside a cell that stood out alone may, where its rows per unit are
#: under a share of that cell's; and how rarely an empty cell there passes the level no one cell may. Chosen on
#: benchmarks/bench_draft_bounds.py's two tables (session 61): the years exact from 5,000 rows at eps 1, birth years
#: within 0.05 standard deviations from 20,000 rows at eps 0.5 (clipping up to 17 % there, 3 % at eps 1), integers
#: 1000-1999 not clipped. And how many deviations of its own noise the stretch between a tail's cut and the end of a
#: walk out from the evidence may hold to be cut too (session 63, with its third table, `dates`: policy years
#: 2019-2023 from 2,000 rows at eps 1 once drafted 2019..2082 on 2 seeds of 3, now 2019..2029; 3 deviations cut the
#: thin 1950s of normal births).
WIDE_CUT_DEVIATIONS = 0.5
WIDE_WHOLE_DEVIATIONS = 3.0
WIDE_EMPTY_DENSITY = 0.1
WIDE_CELL_FALSE = 0.01
WIDE_REST_DEVIATIONS = 2.0


def _wide_cut(counts: np.ndarray, widths: np.ndarray, epsilon: Fraction, rows: float, total: float,
              evidence: tuple[float, float] | None, alone: bool = True) -> tuple[int, float]:
    """How many cells to cut from a wide cell's edge, and the most rows a tail so cut may hold: :func:`_tail_cut`,
    never into the cells from a run of evidence outward up to their change point (:func:`_change_point`) where their
    drift-penalized sum there passes :data:`KEPT_DEVIATIONS` deviations of one cell's noise (less the cells at its
    end that add under :data:`KEPT_TRIM` deviations to it): rows a year that the
    noise of the whole stretch hides, but that stand out of the noise beside the run (births at 100-170 a year
    before the decade 1960-1969 that passed, 14 % of the rows, were cut with the stretch 1000-1959 down to 1957-1960
    on 13 of 30 seeds, clipping 6 % of the rows on average; now none, 2.0 %). Not beside a cell that stood out alone:
    the cut reads the cells beside it already, and the floor there kept noise past exact years. Public: noisy
    counts."""
    cut, held = _tail_cut(counts, widths, epsilon, rows, total, evidence, alone)
    if evidence is not None and not alone:
        gains, deviation = _gains(counts[::-1], epsilon), _scale(epsilon) * math.sqrt(2)
        if gains.max() >= KEPT_DEVIATIONS * deviation:
            # the fewest cells whose gain is within KEPT_TRIM deviations of the change point's: the argmax overshoots
            # into empty cells whose noise happens to sum above their drift
            kept = int(np.flatnonzero(gains >= gains.max() - KEPT_TRIM * deviation)[0])
            cut = min(cut, len(counts) - kept)
    return cut, held


def _tail_cut(counts: np.ndarray, widths: np.ndarray, epsilon: Fraction, rows: float, total: float,
              evidence: tuple[float, float] | None, alone: bool = True) -> tuple[int, float]:
    """How many cells to cut from a wide cell's edge (before :func:`_wide_cut`'s floor), and the most rows a tail so
    cut may hold (0 where nothing is cut, or a stretch that looked empty beside a cell alone). ``counts`` and
    ``widths``: the cells from that edge inward, up to the ``evidence`` of rows (:func:`_anchor`'s: a cell that stood
    out alone where ``alone``, else a run that passed, as its noisy rows and width per cell; None: none inside, and
    the stretch is the whole wide cell);
    ``total``: the wide cell's noisy sum. The share a cut may hold: :data:`REFINE_CUT` of ``rows``, at most
    :data:`REFINE_CELL_SHARE` of ``total``.

    - Beside a cell alone: nothing where the stretch holds more rows per unit than :data:`WIDE_EMPTY_DENSITY` of that
      cell's and the cell is wider than its cells (the thin 1900s of integers 1000-1999 beside the century 1800-1899,
      20 rows a year, which a noisy walk over a hundred cells cannot tell from none); all of it where it holds fewer
      and its sum is within the share plus :data:`WIDE_WHOLE_DEVIATIONS` of its noise (the empty years 2022-2999
      beside years 2019-2021 that stood out), up to its outermost cell above the level an empty one passes with
      probability :data:`WIDE_CELL_FALSE` over their number.
    - Else the tail's cut: the longest run from the edge whose noisy sum is within the share plus
      :data:`WIDE_CUT_DEVIATIONS` of its noise, as :func:`_refined` cuts (a tail, as birth dates' 1920s-1940s before
      the first year that stood out; or a noise spike in an empty year, which is kept: the bounds widen, nothing is
      clipped). Beside evidence, all of it where every such run looks empty, and else also the stretch between that
      cut and where a walk out from the evidence stops (:func:`_next_cells`), where it is thin and its sum within
      :data:`WIDE_REST_DEVIATIONS` of its own noise; where that stretch does not look empty, the stretch between the
      cut and the change point of the rows from the evidence outward (:func:`_change_point`), likewise. Where no
      evidence lies inside (the wide cell stood out by its sum), the same from the wide cell's inner edge, the rows
      the walk or the change point keeps standing for the evidence.

    Public: noisy counts and cells."""
    if len(counts) == 0:
        return 0, 0.0
    share = min(REFINE_CUT * rows, REFINE_CELL_SHARE * max(float(total), 1.0))
    noise = _scale(epsilon) * np.sqrt(2 * np.arange(1, len(counts) + 1))
    sums = np.cumsum(counts)
    cell_level = lambda cells: _scale(epsilon) * math.log(cells / WIDE_CELL_FALSE)  # noqa: E731 -- no one empty cell's

    # rows per unit under WIDE_EMPTY_DENSITY of the evidence's (or of the rows that stand for it)
    def thin(stretch: slice, reference: tuple[float, float] | None = None) -> bool:
        reference = reference or evidence
        return max(float(counts[stretch].sum()), 0.0) / widths[stretch].sum() <= \
            WIDE_EMPTY_DENSITY * max(reference[0], 1.0) / reference[1]

    if evidence is not None and alone:
        if not thin(slice(None)) and evidence[1] > widths.max():
            return 0, 0.0  # the data go on past a wider cell that stood out (a century), thinner per year: keep them
        # whole: thin, the sum looks empty, and no one cell stands out of its noise (a year of 667 rows beyond two
        # that stood out, in a run of 79 otherwise empty ones); each empty cell passes that level with probability
        # WIDE_CELL_FALSE / cells. Where one does, up to the outermost such cell: the founding years 2026-2999 beside
        # 2000-2025, one empty year's noise at 398 rows against a level of 386, were not cut at all (bounds to 2999)
        if thin(slice(None)) and sums[-1] <= share + WIDE_WHOLE_DEVIATIONS * noise[-1]:
            above = np.flatnonzero(counts > cell_level(len(counts)))
            return (int(above[0]) if len(above) else len(counts)), 0.0
    level = share + WIDE_CUT_DEVIATIONS * noise  # a tail, beside data that stood out or not
    if evidence is not None and sums[-1] <= level[-1]:
        return len(counts), float(level[-1])  # all of it looks empty, up to the evidence of rows: cut whole
    cut = _empty_run(sums, level)
    held = float(level[cut - 1]) if cut else 0.0
    if cut < len(counts):
        # everything past where a walk from the evidence outward stops (:func:`_next_cells`), cut where it is thin and
        # looks empty: its sum within WIDE_REST_DEVIATIONS of its noise, no cell above the level. The tail's sum runs
        # over every cell from the edge and its noise drifts: policy years 2019-2023 were cut from 2099 down to 2082,
        # hire dates 2005-2025 (beside the run 2010-2019) to 2096. Where that stretch holds rows the walk could not
        # see, everything past the change point of the rows from the evidence outward (:func:`_change_point`): hire
        # years 1988-2024 at 120 rows a year from 2020 on, beside the run 2010-2019, were drafted up to 2054 (9,000
        # rows, bounds epsilon 0.027). Where no evidence lies inside (the wide cell stood out by its sum), the cells
        # kept stand for it
        outward = np.concatenate([[np.inf], counts[::-1]])
        walked = _next_cells(outward, np.ones(len(outward), dtype=bool), 0, +1, epsilon, rows,
                             np.concatenate([[1.0], widths[::-1]]))
        changed = max(walked, _change_point(counts[::-1][:len(counts) - cut], epsilon))
        for kept in dict.fromkeys((walked, changed)):
            reach = len(counts) - kept
            reference = evidence if evidence is not None else \
                (float(counts[reach:].sum()) / kept, float(widths[reach:].sum()) / kept) if kept else None
            if reference is None or reach <= cut:
                continue
            beyond = slice(cut, reach)
            beyond_level = share + WIDE_REST_DEVIATIONS * _scale(epsilon) * math.sqrt(2 * (reach - cut))
            if thin(beyond, reference) and counts[beyond].sum() <= beyond_level and \
                    counts[beyond].max() <= cell_level(reach - cut):
                return reach, held + beyond_level
    return cut, held


#: The rows per cell, in deviations of one cell's noise, below which the cells past evidence of rows count as the tail's
#: end (:func:`_change_point`). Chosen on benchmarks/bench_draft_bounds.py's five tables (session 77): against the
#: walk's stretch alone, the mean distance fell on `dates` (0.0195 to 0.0174) and `staff` (0.047 to 0.027), the
#: bounds' spare span past the data on `staff` from 0.22 to 0.035 of the data's range, for mean clipped shares up by at
#: most 0.06 points. A thin test that allows the stretch a deviation of its noise cut more of the hire years' empty
#: future and more real tails (normal birth dates clipped 12 % against 5 %, skewed founding years 11 % against 6 %);
#: a quarter deviation did about as well on a generated roster: docs/decisions.md, session 77.
REST_DRIFT = 0.5
#: How far, in deviations of one cell's noise, the drift-penalized sum of the cells from a run of evidence outward to
#: their change point must pass 0 for the cut to keep them (:func:`_wide_cut`; session 77: 2 against 0 to 3 on the
#: employees trial and bench_draft_bounds.py).
KEPT_DEVIATIONS = 2.0
#: How far below the change point's gain, in deviations of one cell's noise, the cells the floor keeps may stop
#: (:func:`_wide_cut`; session 77: 0.5 against 0 and 1 on the employees trial. Without it, hire years ended past 2030
#: on 4 drafts of 30 against 2 at epsilon 0.5, and 2 against 0 at epsilon 1; with 1, births clipped 6.3 % against
#: 5.4 %).
KEPT_TRIM = 0.5


def _gains(outward: np.ndarray, epsilon: Fraction) -> np.ndarray:
    """For b = 0, 1, ..: the noisy sum of the first b cells ``outward`` from evidence of rows, less :data:`REST_DRIFT`
    deviations of one cell's noise each (CUSUM). Public: noisy counts."""
    drift = REST_DRIFT * _scale(epsilon) * math.sqrt(2)
    return np.concatenate([[0.0], np.cumsum(np.asarray(outward, dtype=float) - drift)])


def _change_point(outward: np.ndarray, epsilon: Fraction) -> int:
    """How many of the cells ``outward`` from evidence of rows hold rows, by the change point of their drift-penalized
    noisy sum: the count b whose :func:`_gains` is largest. Public: noisy counts."""
    return int(np.argmax(_gains(outward, epsilon)))


def _zero_apart(edges: np.ndarray, passed: Sequence[int]) -> bool:
    """Whether the bounds histogram's cell at 0 stood out of the noise while the other cells that did lie on one
    side of it, at least 10 away and farther than their own span: 8 % of a collision table's latitudes were 0.0
    (missing, written as 0) and the rest 40.5-40.9 (the cell 40-49), so the bounds ran 0..50 and a synthetic latitude
    could be 2.7. A fee of 0 or 15-95 (cells 10-99: a span of 90 beyond a gap of 10) is not named. Public: the cells
    that passed."""
    zero = [i for i in passed if edges[i] == 0.0]
    others = [(float(edges[i]), float(edges[i + 1])) for i in passed if edges[i] != 0.0]
    if not (zero and others) or not (all(lo >= 0 for lo, _ in others) or all(hi <= 0 for _, hi in others)):
        return False
    low, high = min(lo for lo, _ in others), max(hi for _, hi in others)
    gap = low if low >= 0 else -high
    return bool(gap >= max(10.0, high - low))


def _threshold(epsilon: Fraction, cells: int) -> float:
    """The rows a bounds cell must pass: t ln(cells / FALSE_CELL), t the noise scale (see :func:`_bounds`)."""
    return _scale(epsilon) * np.log(cells / FALSE_CELL)


def _no_bounds(name: str, kind: str, epsilon: Fraction, cells: int, has_null: bool, wide: dict,
               undecided: dict[str, list[str]]) -> Column:
    """A number or date column whose bounds histogram showed nothing: its bounds left undecided (``null`` in the
    file, refused at every use until declared), its name filed under the threshold it missed for one note (public:
    the name, epsilon and the threshold), as a text column drafted with delta = 0 is told to declare its
    categories."""
    missed = f"more than about {_threshold(epsilon, cells):,.0f} rows at epsilon={float(epsilon):.3g}"
    undecided.setdefault(missed, []).append(name)
    return UndecidedColumn(name=name, type=kind, null=bool(has_null), **wide)


def _one_value_note(name: str, low: float, high: float, epsilon: Fraction, cells: int, clip: bool) -> str:
    """A drafted column whose bounds hold one value, [v, v]: an integer's, or a decimal one's where only the cell next
    to 0 ([0, 0.001]: a fee that is $0.00 on most rows) stood out, drafted as [0, 0]: every row would encode as that
    value (clipped) or as ``<other>``, the usual fate of a 0/1 flag whose 1s, or of the non-zero amounts, are fewer
    than the threshold. Named, as the noise's doing, with what to do (public: the name, the drafted bounds, epsilon
    and the threshold)."""
    value = shown = f"{low:.0f}"
    fate = f"clipped to {value}" if clip else f"either {value} or <other>"
    return (f"column {name!r}: its drafted bounds hold one value, {shown}, so every row's value is {fate}: "
            f"no other cell of its bounds histogram stood out of the noise (a cell needs more than about "
            f"{_threshold(epsilon, cells):,.0f} rows at epsilon={float(epsilon):.3g}); if the column takes other "
            "values (a 0/1 flag, amounts that are mostly 0), declare its bounds from public knowledge (or draft with "
            "a larger epsilon)")


def _outer_cells(name: str, edges: np.ndarray, low: float, high: float, integer: bool, cell_text) -> list[str]:
    """``name``'s drafted bounds with the outer cells they are the edges of (:func:`_outer_cells_note`), as one
    entry; none where both outer cells hold one value (an integer's bounds are then the cells' own values).
    ``cell_text(first, last)`` writes a cell (``last`` inclusive for integers and dates, exclusive for decimals).
    Public: the bounds and the public cells."""
    finite = edges[np.isfinite(edges)]
    above, below = finite[finite > low], (finite[finite <= high] if integer else finite[finite < high])
    low_last = min(above[0] - 1 if integer else above[0], high) if len(above) else high
    high_first = max(below[-1], low) if len(below) else low
    if integer and low_last == low and high_first == high:
        return []
    cells = (f"one cell, {cell_text(low, high if integer else low_last)}" if (low_last, high_first) == (high, low)
             else f"outer cells {cell_text(low, low_last)} and {cell_text(high_first, high)}")
    return [f"{name!r} {cell_text.show(low)}..{cell_text.show(high)} ({cells})"]


class _NumberCells:
    """Writes a number bounds cell: integers 20-29 (or 7), decimals [20, 30)."""

    def __init__(self, integer: bool):
        self.integer = integer

    def show(self, value: float) -> str:
        return f"{value:.0f}" if self.integer else f"{value:g}"

    def __call__(self, first: float, last: float) -> str:
        if self.integer:
            return f"{first:.0f}" if first == last else f"{first:.0f}-{last:.0f}"
        return f"[{first:g}, {last:g})"


class _YearCells:
    """Writes a date bounds cell (days since 1970, ``last`` inclusive): its year, or its years (1850-1859), or where
    refining made it one, its month (2025-03) or day."""

    @staticmethod
    def show(day: float) -> str:
        return str(np.datetime64(int(day), "D"))

    def __call__(self, first: float, last: float) -> str:
        if first == last:
            return self.show(first)
        month = np.datetime64(int(first), "D").astype("datetime64[M]")
        if month.astype("datetime64[D]").astype(np.int64) == first and \
                (month + 1).astype("datetime64[D]").astype(np.int64) == last + 1:
            return str(month)
        years = self.show(first)[:4], self.show(last)[:4]
        return years[0] if years[0] == years[1] else f"{years[0]}-{years[1]}"


def _outer_cells_note(entries: list[str]) -> str:
    """The note naming every column whose drafted bounds are the edges of wide cells (:func:`_bounds`): the data may
    end anywhere inside an outer cell, and a synthetic value is drawn evenly over its bin, so synthetic values reach
    the cell's edge where the data does not (a clock's hours 0..23 drafted up to 29 from the cell 20-29, where its
    subcells hold too few rows to refine it, :func:`_refined`). Public:
    the drafted bounds and the public cells."""
    return ("column(s) whose drafted bounds are the edges of the histogram cells that stood out of the noise, not the "
            f"data's least and greatest values: {', '.join(entries)}; where the data ends inside an outer cell, "
            "synthetic values still reach its edge (a bin's values are spread evenly over it), and values beyond the "
            "bounds are clipped (or go to other): declare bounds from public knowledge where you have them (a "
            "clock's hours are 0..23)")


#: Refined bounds (:func:`_refined`): how many times the outer cells are split in ten at most; the share of the
#: column's rows, and of the cell's, a run of subcells may hold and still be cut, besides how many deviations of its
#: noise; and how large, against those rows, the noise of a level's sum over all its subcells may be for refining
#: to pay (:func:`refining_pays`). Chosen on generated columns (birth years, years, latitudes, normal scores and
#: temperatures, ages, log-normal amounts, gamma hours; 500-100,000 rows, eps 0.5-5; benchmarks/bench_draft_bounds.py):
#: up to 9 % of a column's rows cut (a normal column, 100,000 rows, eps 0.5; 3 % or less on most), where the first
#: rule (cut at the first subcell that passes alone) cut 40 %.
REFINE_LEVELS = 3
REFINE_CUT = 0.005
REFINE_DEVIATIONS = 1.0
REFINE_CELL_SHARE = 0.05
REFINE_NOISE = 0.02


def _even_edges(first: float, last: float, count: int, digits: int) -> np.ndarray:
    """The edges of [first, last) split in ``count`` equal parts, rounded to ``digits`` decimal places below the
    leading digit of a part's width (public)."""
    width = (last - first) / count
    return np.round(np.linspace(first, last, count + 1), max(0, -math.floor(math.log10(width))) + digits)


def _subcells(first: float, last: float, integer: bool) -> np.ndarray | None:
    """The edges of [first, last) split in ten equal public cells, on the decimal grid of their width; None where
    it cannot be split (an integer cell narrower than 10, an infinite or one-value cell)."""
    width = (last - first) / 10
    if not (np.isfinite(first) and np.isfinite(last) and width > 0) or (integer and (width < 1 or width % 1)):
        return None
    return _even_edges(first, last, 10, digits=1)


def refining_pays(epsilon: Fraction, rows: float) -> bool:
    """Whether a level of refined bounds at ``epsilon`` can tell an empty run of subcells from one holding rows:
    the noise of a sum of all 20 subcells (deviation scale x sqrt 40) within :data:`REFINE_NOISE` of ``rows``, the
    profile's noisy count of the column's numbers (public)."""
    return _scale(epsilon) * math.sqrt(40) <= REFINE_NOISE * rows


def _refined(name, values, reader, epsilon, cells, low, high, integer, *, rows: float, split=None,
             levels: int = REFINE_LEVELS, sides: tuple[bool, bool] = (True, True)
             ) -> tuple[float, float, np.ndarray, Fraction]:
    """Bounds narrowed inside their outer cells: the cell of the lower bound and the cell of the upper bound (one cell
    where they are the same) each split in ten equal public subcells, one noisy histogram over the subcells (and
    one cell for every other row: L1 sensitivity 2) at ``epsilon``, and the lower bound moved up past the longest
    run of subcells from the cell's start whose noisy sum is at most :data:`REFINE_CUT` of ``rows`` (and
    :data:`REFINE_CELL_SHARE` of the cell's noisy sum, whichever is less) plus :data:`REFINE_DEVIATIONS` deviation
    of its noise (scale x sqrt(2 j) for j subcells), the upper bound down
    likewise from the cell's end: only a run that looks empty is cut, and what a cut run holds is rarely more than
    that share and two deviations; where every subcell of a cell looks empty (the noise's doing) nothing is cut.
    Then again inside the new outer subcells (the first and last kept), :data:`REFINE_LEVELS` times at most, for
    an end that was cut or whose kept subcell holds half the cell's noisy rows: uniform temperatures spread over
    the cell [-4, -3) lost a little more at each level, down to bounds such as -3.593.
    Birth years 1940-2005 were drafted 1000..2999 from the cells 1000-1999 and 2000-2999, latitudes 41.65-42.05
    as 40..50, years 2019-2021 as 2000..2999: the outer bins then reached 1000, 50 and 2999, and synthetic values
    with them. Cutting at the first subcell whose count passed the bounds threshold alone (the first version)
    clipped 40 % of a longitude column whose bulk spread over three subcells, and a prefix test at the run
    threshold up to 17 % of a normal column's tail. ``split(first, last)`` gives a cell's public subcells (None where
    it has none): ten equal ones by default, a date's by the calendar (:func:`_calendar_subcells`: a year's months, a
    month's days); ``levels`` the most splits; ``sides``: which of the lower and upper outer cells to split.
    Returns the bounds, the public grid they lie on (for the note) and the epsilon spent. Privacy: each level is the
    reader's histogram, (epsilon, 0)-DP; the rest reads only noisy counts and public quantities."""
    finite = cells[np.isfinite(cells)]
    top = high + 1 if integer else high  # the upper bound as an exclusive edge
    lower = (low, float(finite[finite > low][0])) if sides[0] and low > finite[0] and (finite > low).any() else None
    upper = (float(finite[finite < top][-1]), top) if sides[1] and top < finite[-1] and (finite < top).any() else None
    grid, spent = np.asarray(cells, dtype=np.float64), Fraction(0)
    split = split or (lambda first, last: _subcells(first, last, integer))
    for level in range(levels):
        ends = [end for end in ((lower, "lower"), (upper, "upper")) if end[0] is not None]
        if lower is not None and lower == upper:
            ends = [(lower, "both")]
        splits = [(side, split(*cell)) for cell, side in ends]
        splits = [(side, edges) for side, edges in splits if edges is not None]
        if not splits:
            break
        index = np.zeros(len(values), dtype=np.int64)  # 0: any other row
        starts = np.cumsum([1] + [len(edges) - 1 for _, edges in splits])  # each split's first cell
        for start, (_, edges) in zip(starts, splits):
            inside = (values >= edges[0]) & (values < edges[-1])
            index[inside] = start + np.clip(np.searchsorted(edges, values[inside], side="right") - 1, 0,
                                            len(edges) - 2)
        counts = np.asarray(reader.histogram(index, int(starts[-1]), epsilon=epsilon,
                                             label=f"{name}: bounds, level {level + 1}"), dtype=np.float64)
        spent += epsilon
        for start, (side, edges) in zip(starts, splits):
            k = len(edges) - 1  # ten subcells (a number's), or a year's months, a month's days
            sub = counts[start:start + k]
            total = max(float(sub.sum()), 1.0)
            # the most a run may hold and still look empty: a share of the column's rows and of the cell's, plus the
            # noise (a tail spread thin over the cell is not empty), then the longest leading (trailing) such run
            deviations = REFINE_DEVIATIONS * _scale(epsilon) * np.sqrt(2 * np.arange(1, k + 1))  # of j = 1..k
            empty = min(REFINE_CUT * rows, REFINE_CELL_SHARE * total) + deviations
            cut_low = _empty_run(np.cumsum(sub), empty, whole=side == "lower") if side != "upper" else 0
            cut_high = _empty_run(np.cumsum(sub[::-1]), empty, whole=side == "upper") if side != "lower" else 0
            if cut_low + cut_high >= k:  # the runs from both ends meet: the noise's doing, cut nothing
                cut_low = cut_high = 0
            # an end is split again where it was cut, or where its first (last) kept subcell holds half the cell's
            # rows (the data sit in it: years 2019-2021 in 2000-2099); else its rows spread over the cell, and a
            # deeper cut would only trim a tail
            if side in ("lower", "both"):  # the bound's new outer cell: the first subcell kept
                low = float(edges[cut_low])
                deeper = cut_low < k and (cut_low > 0 or sub[cut_low] >= total / 2)
                lower = (low, float(edges[cut_low + 1])) if deeper else None
            if side in ("upper", "both"):
                top = float(edges[k - cut_high])
                deeper = cut_high < k and (cut_high > 0 or sub[k - 1 - cut_high] >= total / 2)
                upper = (float(edges[k - 1 - cut_high]), top) if deeper else None
            if cut_low or cut_high:
                grid = np.union1d(grid, edges)
    return low, (top - 1 if integer else top), grid, spent


def _empty_run(sums: np.ndarray, empty: np.ndarray, whole: bool = False) -> int:
    """How many of ten subcells to cut: the longest run from the start whose noisy sum (``sums``, cumulative) is at
    most its ``empty`` level, so that one early excursion of the noise does not stop the cut; where all ten look
    empty, all of them with ``whole`` (a cell beside others within the bounds: one the walk past the bounds took,
    :func:`_next_cells`, can be empty, and a longitude's bounds once stayed a whole empty cell wide), else 0 (the
    bounds' only cell, which passed their threshold: its emptiness is the noise's doing)."""
    looks_empty = np.flatnonzero(sums <= empty)
    if whole and len(looks_empty) and looks_empty[-1] == len(sums) - 1:
        return len(sums)
    return int(looks_empty[-1]) + 1 if len(looks_empty) and looks_empty[-1] < len(sums) - 1 else 0


#: Where positive bounds span at least this ratio, the draft's equal bins are equal in log scale if, by the bounds
#: histogram's noisy rows, the fullest of those bins holds at most this share of what the fullest equal-width bin
#: holds (:func:`_log_or_equal_edges`). Chosen on benchmarks/bench_draft_bounds.py (session 62).
LOG_BINS_RATIO = 10.0
LOG_EVENNESS = 0.7


def _bin_shares(cells: np.ndarray, counts: Sequence[float], edges: Sequence[float]) -> np.ndarray:
    """Each bin's share of the bounds histogram's noisy rows (clipped at 0), a cell's rows spread evenly over it
    (public: post-processing). Infinite cells lie outside finite bins and count nowhere."""
    mass = np.maximum(np.asarray(counts, dtype=np.float64), 0.0)
    starts, ends = cells[:-1], cells[1:]
    finite = np.isfinite(starts) & np.isfinite(ends)
    width = np.where(finite, ends - starts, 1.0)
    held = []
    for a, b in zip(edges[:-1], edges[1:]):
        overlap = np.clip(np.minimum(ends, b) - np.maximum(starts, a), 0.0, None)
        held.append(float(np.sum(np.where(finite, mass * overlap / width, 0.0))))
    held = np.asarray(held)
    return held / held.sum() if held.sum() > 0 else held


def _log_or_equal_edges(cells: np.ndarray, counts: Sequence[float], low: float, high: float, bins: int,
                        integer: bool) -> list[float]:
    """``bins`` equal bins over [low, high], equal in log scale where that shares a column's rows more evenly, read
    from the bounds histogram's noisy counts: positive bounds at least :data:`LOG_BINS_RATIO` apart, and the fullest
    log-scale bin holding at most :data:`LOG_EVENNESS` of what the fullest equal-width one holds. Log-normal amounts
    over 1..1500: 0.19 against 0.74 of the rows (equal widths put three quarters in the first bin), unit prices over
    1..300 0.24 against 0.45; gamma hours over 0.1..30, 0.29 against 0.32, keep equal widths. Public:
    post-processing."""
    equal = _equal_edges(low, high, bins, integer)
    if not (low > 0 and high / low >= LOG_BINS_RATIO):
        return equal
    logged = _log_edges(low, high, bins, integer)
    widest = _bin_shares(cells, counts, equal).max()
    return logged if widest > 0 and _bin_shares(cells, counts, logged).max() <= LOG_EVENNESS * widest else equal


#: The share of one bin's rows under which the bins at an end of an integer's drafted years, together, may be one bin
#: (:func:`_merged_empty_ends`).
EMPTY_END_SHARE = 1.0


def _merged_empty_ends(cells: np.ndarray, counts: Sequence[float], edges: list[float],
                       epsilon: Fraction) -> list[float]:
    """An integer's years in equal bins where quantiles cannot place them, with the bins at either end that look empty
    together made one bin and the others spread equally over the rest of the bounds: their noisy sum (the bounds
    histogram's one-year cells, not clipped at 0, so that the noise of empty cells sums toward 0) within
    :data:`WIDE_REST_DEVIATIONS` of its noise and under :data:`EMPTY_END_SHARE` of one bin's rows. Where the noise
    hides whether the last years hold rows, the bounds reach past them (hire years 1988-2024 drafted 1988..2051 in
    ten bins of six years, four of them empty); a noisy model gives each empty bin its noise's rows and decodes them
    evenly over it (hires in 2045). As one bin the empty stretch gets one bin's noise, and the years that hold the
    rows keep nine bins of four years. Public: post-processing of the noisy counts."""
    bins = len(edges) - 1
    if bins < 4:
        return edges
    counts = np.asarray(counts, dtype=np.float64)
    # each bin's cells: those wholly inside its first and last integer (the last bin's high bound is in it)
    inside = [(cells[:-1] >= first) & (cells[1:] <= last + 1)
              for first, last in zip(edges[:-1], [*(e - 1 for e in edges[1:-1]), edges[-1]])]
    held = np.array([float(counts[cells_in].sum()) for cells_in in inside])
    sizes = np.array([int(cells_in.sum()) for cells_in in inside])
    if not held.sum() > 0:
        return edges
    share = EMPTY_END_SHARE * held.sum() / bins
    first = _empty_end_run(held[:bins - 2], sizes[:bins - 2], epsilon, share)
    last = _empty_end_run(held[::-1][:bins - 2], sizes[::-1][:bins - 2], epsilon, share)
    first, last = (first if first >= 2 else 0), (last if last >= 2 else 0)
    if not (first or last) or first + last > bins - 2:  # nothing to merge, or too little left for the rows
        return edges
    inner = _equal_edges(edges[first], edges[bins - last], bins - bool(first) - bool(last), True)
    return [*([edges[0]] if first else []), *inner, *([edges[-1]] if last else [])]


def _empty_end_run(held: np.ndarray, cells: np.ndarray, epsilon: Fraction, share: float) -> int:
    """How many of the bins (or cells) ``held`` lists from an end look empty together: their noisy sum, not clipped
    at 0, within :data:`WIDE_REST_DEVIATIONS` of the noise of the ``cells`` histogram cells each holds, and under
    ``share``. Public: noisy counts."""
    running = np.cumsum(held)
    noise = WIDE_REST_DEVIATIONS * _scale(epsilon) * np.sqrt(2 * np.maximum(np.cumsum(cells), 1))
    looks_empty = np.flatnonzero((running <= noise) & (running < share))
    return int(looks_empty[-1]) + 1 if len(looks_empty) else 0


def _unplaced_edges(cells: np.ndarray, counts: Sequence[float], low: float, high: float, bins: int, integer: bool,
                    decimals: int | None) -> list[float]:
    """The bins where quantiles cannot place them (no budget): :func:`_log_or_equal_edges`, after a bin of its own
    for the lowest value where it holds a bin's share of the rows (:func:`_holds_a_bin`): an integer's [low, low + 1),
    or a decimal's [0, 10^-decimals) where the column's decimals are known (the rest then equal: its log scale would
    start at 0.01, far below the data); and where the bounds reach below 0, for 0 likewise, with the values below it
    one bin (a discount 0 on 80 % of the orders kept its zeros' bin until a walk past the bounds took the empty cell
    -9..-1: the zeros were then decoded as -1, 0 and 1)."""
    if not integer and decimals is None:
        return _log_or_equal_edges(cells, counts, low, high, bins, integer)

    def after(value: float) -> float:  # the next value the column writes
        return value + 1 if integer else 10.0 ** -decimals

    def rest(begin: float, count: int) -> list[float]:
        return (_log_or_equal_edges(cells, counts, begin, high, count, integer) if integer
                else _equal_edges(begin, high, count, integer))

    heavy = _heavy_value(cells, counts, low, high, bins, integer, decimals)
    if heavy is not None and low < heavy and after(heavy) < high:  # 0 inside: the values below it one bin
        return [low, 0.0, *rest(after(0.0), bins - 2)]
    if heavy is not None and heavy == low:
        return [low, *rest(after(low), bins - 1)]
    if heavy is not None:
        # 0 at the top (refunds written negative, 0 on 85 % of the rows): the closed last bin [-20, 0] decoded the
        # zeros evenly over -20..0 (KS 0.85); the bounds reach one written value past 0 so that 0 has [0, 0.1]
        return [*_equal_edges(low, 0.0, bins - 1, integer), after(0.0)]
    return _log_or_equal_edges(cells, counts, low, high, bins, integer)


def _holds_a_bin(cells: np.ndarray, counts: Sequence[float], value: float, end: float, low: float, high: float,
                 bins: int) -> bool:
    """Whether the bounds histogram's cell [``value``, ``end``), one value (an integer's 0..9 or a year, a decimal's
    cell at 0), holds at least 1 / ``bins`` of the noisy rows inside the bounds [``low``, ``high``] (clipped at 0): a
    discount that is 0 on 80 % of the orders and 5-30 on the rest, drafted 0..29 in ten equal bins, decoded its zeros
    evenly as 0, 1 and 2, values no order had. Public: post-processing of the histogram."""
    start = np.flatnonzero(cells[:-1] == value)
    if len(start) == 0 or cells[start[0] + 1] != end:
        return False
    inside = (cells[:-1] >= low) & (cells[:-1] <= high)
    mass = np.maximum(np.asarray(counts, dtype=np.float64), 0.0)
    return bool(mass[inside].sum() > 0 and mass[start[0]] >= mass[inside].sum() / bins)


def _log_edges(low: float, high: float, bins: int, integer: bool) -> list[float]:
    """``bins`` bins over [low, high] equal in log scale, each inner edge rounded to two significant digits (whole for
    integers; public)."""
    edges = np.geomspace(low, high, bins + 1)[1:-1]
    inner = [round(float(e), int(1 - math.floor(math.log10(e)))) for e in edges]
    inner = np.round(inner) if integer else np.asarray(inner)
    return [low, *sorted({float(e) for e in inner if low < e < high}), high]


def _equal_edges(low: float, high: float, bins: int, integer: bool) -> list[float]:
    """``bins`` equal bins over [low, high] (whole numbers for integers, at most one per integer), where quantiles
    would be the noise's (:func:`_numbers`): public, no budget."""
    edges = np.round(np.linspace(low, high, bins + 1)) if integer else _even_edges(low, high, bins, digits=2)
    return [float(e) for e in np.unique(edges)]


def _quantile_edges(name, values, reader, epsilon, cells, counts, low, high, bins, integer, decimals,
                    gaps: Sequence[tuple[float, float]] = ()) -> list[float]:
    """BIN EDGES: quantiles 1/b .. (b-1)/b by the exponential mechanism (the reader's), candidates inside the bounds;
    but a value that holds a bin's share of the rows by the bounds histogram (:func:`_heavy_value`) gets a bin of its
    own, [v, v + one written step), and the quantiles are those of the other values, over the other candidates, one
    or two fewer. Where 92 % of the capital gains are 0 and the rest 114-99,999, every quantile but the last is 0 and
    the exponential mechanism's scores are flat over the empty 1-113, so the edges fell at 100, 200, 300, .. and the
    zeros decoded over 0..99, the gains all in one bin [1000, 99999] (0.41 standard deviations off; refunds of -5 to
    -500 beside 85 % zeros likewise decoded their zeros over -1.5..0). Privacy: as the reader's quantiles (the other
    values are a function of each row alone, as the non-NULL ones are: rank sensitivity 1).

    Each of the ``gaps`` (:func:`_gaps`; and the spikes of :func:`_spike_bins`) is a bin of its own likewise, its
    rows left out of the quantiles and its inside out of the candidates: the scores are flat over a gap too, and hours 1-80 with 999 for "not asked" on 5 %
    of the rows had their last bin [56, 999], decoding the sentinels and the longest hours evenly over 56..999."""
    heavy = _heavy_value(cells, counts, low, high, bins, integer, decimals)
    own: list[float] = []
    others = np.asarray(values, dtype=np.float64)
    # the candidates over each stretch between the gaps (each stretch's own 999 steps: latitudes 40.5-40.9 beyond a
    # gap from 0 had steps of 0.1 over 0..40.9, and the first quantile tied over 40.0-40.5)
    ends = [low, *(end for gap in gaps for end in gap), high]
    candidates = np.concatenate([_inner_candidates(a, b, integer) for a, b in zip(ends[0::2], ends[1::2])
                                 if not _one_cell(a, b, integer)] or [np.zeros(0)])
    if heavy is not None:
        after = heavy + (1 if integer else 10.0 ** -decimals)
        own = [heavy, after]
        if low < heavy == 0 and high <= ZERO_CELL:  # 0 at the top (negatives): the bounds reach one written value
            high = after                            # past it, for 0's bin
        candidates = candidates[(candidates < heavy) | (candidates > after)]
        others = others[(others < heavy) | (others >= after)]
    for start, end in gaps:
        own += [start, end]
        others = others[(others < start) | (others >= end)]
    own_inner = {float(e) for e in own if low < e < high}
    rest_bins = bins - len(own_inner)  # each edge of its own inside the bounds adds a bin
    inner = reader.quantiles(others, np.arange(1, rest_bins) / rest_bins, candidates, epsilon=epsilon,
                             label=f"{name}: bin edges") if rest_bins > 1 and len(candidates) else []
    return sorted({low, high, *own_inner, *(float(e) for e in inner if low < e < high)})


#: The most share of the thinner anchor's noisy rows a stretch of the bounds histogram between two anchors may hold,
#: beyond three deviations of its noise, and the most share of the thinner anchor's rows per unit it may hold per unit,
#: to be a gap (:func:`_gaps`): empty beside the cells around it, not a thin tail (gamma hours' cells 0.1-0.9 near 0
#: hold 40-150 rows each, about what the anchors beside them do, and at epsilon 1 about their noise: two such stretches
#: were taken for gaps by the first test alone).
GAP_SHARE = 0.1


def _gaps(cells: np.ndarray, counts: Sequence[float], low: float, high: float, epsilon: Fraction, rows: float,
          bins: int) -> list[tuple[float, float]]:
    """Stretches [start, end) of the bounds histogram's cells inside the bounds that look empty between two cells that
    hold rows: two cells or more between anchors (cells whose noisy count passes t ln(#cells / NEXT_CELL_FALSE), t the
    noise scale: an empty one with probability at most NEXT_CELL_FALSE in all), whose noisy sum is at most
    :data:`GAP_SHARE` of the thinner anchor's plus three deviations of its noise, and at most that share of the
    anchors' rows per unit over its width plus one deviation (a thin tail between two anchors, birth years 1936-1938 or amounts of 0.7-0.9,
    is not a gap: it holds about what the anchor next to it does; nor cells near 0 whose rows are about their noise). Each is then a bin of its own (:func:`_quantile_edges`,
    :func:`_gapped_unplaced_edges`): a sentinel beyond the data (999 for "not asked", 0 for a missing latitude) or a
    second cluster otherwise shares a bin with the data next to the gap, and is decoded evenly over it. At most
    ``bins`` // 3 gaps, the widest (in cells) first, so that the rows keep most bins. Public: post-processing of the
    noisy counts."""
    if bins < 4:
        return []
    counts = np.asarray(counts, dtype=np.float64)
    finite = np.isfinite(cells[:-1]) & np.isfinite(cells[1:])
    over = np.flatnonzero(finite & (cells[1:] > low) & (cells[:-1] <= high))
    if len(over) < 4:
        return []
    t = _scale(epsilon)
    level = t * math.log(len(over) / NEXT_CELL_FALSE)
    anchors = [int(i) for i in over if counts[i] > level]
    width = np.diff(cells)
    found = []
    for first, last in zip(anchors[:-1], anchors[1:]):
        k = last - first - 1
        deviation, thinner = t * math.sqrt(2 * k), min(counts[first], counts[last])
        held = float(counts[first + 1:last].sum())
        density = min(counts[first] / width[first], counts[last] / width[last])  # the anchors' rows per unit
        if k >= 2 and held <= GAP_SHARE * thinner + 3 * deviation \
                and held <= GAP_SHARE * density * float(width[first + 1:last].sum()) + deviation:
            found.append((k, float(cells[first + 1]), float(cells[last])))
    found.sort(key=lambda gap: -gap[0])
    return sorted((a, b) for _, a, b in found[:bins // 3])


def _spike_bins(spikes: Sequence[tuple[float, float]], gaps: Sequence[tuple[float, float]], low: float, high: float,
                bins: int, integer: bool, decimals: int | None) -> list[tuple[float, float]]:
    """A bin of its own, [v, v + one written step), for each of ``spikes`` (values holding a bin's share of the rows,
    with the step their text is written to: :func:`_sharp_spikes`) strictly inside the bounds and outside the
    ``gaps``, at most ``bins`` // 3 of them (by value): Adult's weekly hours, 40 on 47 % of the rows, fell in an equal
    bin [38, 44) and were decoded evenly over 38..43, a Kolmogorov-Smirnov distance of 0.37 from the real ones. The
    step is an integer's 1, a decimal column's places where known, else the spike's own ($4.99: 0.01). Public: the
    keys' release and the bounds."""
    if bins < 4:
        return []
    own = []
    for value, written_step in sorted(set(spikes)):
        step = 1 if integer else 10.0 ** -decimals if decimals is not None else written_step
        end = round(value + step, 12)
        if low < value and end < high and not any(a <= value < b or a < end <= b for a, b in gaps):
            own.append((float(value), end))
    return own[:bins // 3]


def _one_cell(low: float, high: float, integer: bool) -> bool:
    """Whether a stretch between gaps is too narrow to split: one integer, or a decimal's cell at 0 (public)."""
    return high - low < (1 if integer else ZERO_CELL * 1.0001)


def _gapped_unplaced_edges(cells, counts, low, high, bins, integer, decimals,
                           gaps: Sequence[tuple[float, float]]) -> list[float]:
    """:func:`_unplaced_edges` with each of the ``gaps`` (:func:`_gaps`, :func:`_spike_bins`) a bin of its own, the other bins shared among the stretches
    between them by their noisy rows (one at least each, the largest remainders first), each stretch's placed as
    :func:`_unplaced_edges` places a column's. Public: post-processing of the noisy counts."""
    if not gaps:
        return _unplaced_edges(cells, counts, low, high, bins, integer, decimals)
    counts = np.maximum(np.asarray(counts, dtype=np.float64), 0.0)
    bounds = [low, *(b for gap in gaps for b in gap), high]
    stretches = list(zip(bounds[0::2], bounds[1::2]))
    held = np.array([counts[(cells[:-1] >= a) & (cells[:-1] < b if b < high else cells[:-1] <= b)].sum()
                     for a, b in stretches]) + 1e-9
    rest = bins - len(gaps) - len(stretches)  # each stretch one bin, each gap one
    if rest < 0:
        return _unplaced_edges(cells, counts, low, high, bins, integer, decimals)
    splits = np.array([not _one_cell(a, b, integer) for a, b in stretches])  # 0's cell alone stays one bin
    if not splits.any():
        return _unplaced_edges(cells, counts, low, high, bins, integer, decimals)
    held = held * splits
    share = rest * held / held.sum()
    extra = np.floor(share).astype(int)
    for i in np.argsort(-(share - extra))[:rest - int(extra.sum())]:
        extra[i] += 1
    edges: list[float] = []
    for (a, b), k in zip(stretches, 1 + extra):
        last = b == high
        top = b if last or not integer else b - 1  # an integer stretch's closed top before the gap
        part = _unplaced_edges(cells, counts, a, top, int(k), integer, decimals) if top > a else [a, top]
        edges += part[:-1] + ([part[-1]] if last else [b])
    return sorted(set(edges))


def _heavy_value(cells, counts, low, high, bins, integer, decimals) -> float | None:
    """The one value that gets a bin of its own (:func:`_quantile_edges`, :func:`_unplaced_edges`), where it holds
    1 / ``bins`` of the bounds histogram's noisy rows inside the bounds (:func:`_holds_a_bin`) and the column writes a
    value past it inside them: 0 inside the bounds (4 bins at least), an integer's low bound or 0 as a decimal's, or
    (decimals) 0 at the top of bounds below it (their high bound in 0's cell: 3 bins at least); None where none does,
    or where a decimal's places are unknown (its one written step past the value; amounts drafted to the cell at 0,
    [0, 0.001], with cents, left nothing for the rest). Public: the bounds and the noisy histogram."""
    if bins <= 2 or (not integer and decimals is None):
        return None
    cell_end = (lambda v: v + 1) if integer else (lambda v: ZERO_CELL)
    step = 1 if integer else 10.0 ** -decimals
    if low < 0 < high and bins > 3 and step < high and _holds_a_bin(cells, counts, 0.0, cell_end(0.0), low, high,
                                                                     bins):
        return 0.0
    if (integer or low == 0) and low + step < high and _holds_a_bin(cells, counts, low, cell_end(low), low, high, bins):
        return float(low)
    if not integer and low < 0 <= high <= ZERO_CELL and _holds_a_bin(cells, counts, 0.0, ZERO_CELL, low, high, bins):
        return 0.0  # its bounds end at 0's cell: 0 at the top
    return None


def _inner_candidates(low: float, high: float, integer: bool) -> np.ndarray:
    """Public candidates strictly inside (low, high]: every integer (when few), else 999 steps rounded to
    three significant digits."""
    if integer and high - low <= 20_000:
        return np.arange(low + 1, high + 1, dtype=np.float64)
    steps = np.linspace(low, high, 1001)[1:-1]
    # A step that should be 0 comes out as float error (-3.4e-21 for (-3e-5, 7e-5) on some CPUs), which no
    # three-digit decimal names exactly: below a billionth of the range it is 0.
    steps[np.abs(steps) < (high - low) * 1e-9] = 0.0
    steps = on_decimal_grid(steps, np.floor(np.log10(np.maximum(np.abs(steps), 1e-300))) - 2, np.round)
    if integer:
        steps = np.round(steps)
    steps = np.unique(steps)
    return steps[(steps > low) & (steps <= high)]


def _numbers(name, kind, values, reader, bounds_epsilon, edges_epsilon, bins, has_null, wide, notes, found,
             rows: float = math.inf, years: bool = True, one_bin_each: int | None = None,
             unwalked_out: list[float] | None = None, spikes: Sequence[tuple[float, float]] = ()) -> Column:
    """``rows``: the profile's noisy count of the column's numbers (public), which says whether refining the bounds
    can see anything (:func:`_refined`); ``years``: whether an integer's bounds cells split 1900-2099 into years
    (:attr:`_Profiled.in_years`); ``one_bin_each``: an integer column whose bounds hold at most so many integers gets
    one bin per integer (default ``bins``); ``unwalked_out``: :func:`_bounds`'; ``spikes``: values holding a bin's
    share of the rows (:func:`_few_values`), each a bin of its own (:func:`_spike_bins`)."""
    one_bin_each = bins if one_bin_each is None else one_bin_each
    integer = kind == "integer"
    steps = {step for _, step in spikes}
    if not integer and wide.get("decimals") is None and len(steps) == 1 and min(steps) < 1:
        # the places the keys' texts of its spikes are written with ($4.99: 2), so that they are written back so
        # (public: the keys' release; a decimal column's places unknown, its spike decoded 4.99821)
        wide = {**wide, "decimals": round(-math.log10(min(steps)))}
    cells = _cell_edges(integer, years)
    runs = _decade_runs(cells)
    year_groups = _year_groups(cells, (1000.0, 2000.0, 3000.0)) if integer and years else []
    private = isinstance(reader, PrivateColumnReader)
    quantiles_see = _quantiles_see(private, bins, edges_epsilon, rows)
    # where refining pays, it takes a third of the bounds' part (and the edges' part, where the bins will be equal);
    # where it does not, equal bins leave the edges' part unspent (the bounds' threshold stays the one the note
    # states)
    refine_epsilon = (bounds_epsilon / 3 + (0 if quantiles_see else edges_epsilon)) / REFINE_LEVELS
    if private and refining_pays(refine_epsilon, rows):
        bounds_epsilon -= bounds_epsilon / 3
    else:
        refine_epsilon = Fraction(0)
    edges_epsilon = edges_epsilon if quantiles_see else Fraction(0)
    passed: list[int] = []
    counts: list[float] = []
    bounds = _bounds(name, values, reader, bounds_epsilon, cells, integer, runs, passed_out=passed, counts_out=counts,
                     wide=year_groups, rows=rows, cut_out=found["wide cut"], edge_out=found["wide edge"],
                     unwalked_out=unwalked_out, decades=_whole_decades(cells))
    if private and _zero_apart(cells, passed):
        found["zero apart"].append(name)
    if bounds is None:  # no bounds, so no bins to place: the bin edges' part stays unspent
        return _no_bounds(name, kind, bounds_epsilon, _other_tests(cells, runs, year_groups), has_null,
                          wide, found["no bounds"])
    low, high = bounds
    zero_cell = not integer and (low, high) in ((0.0, ZERO_CELL), (-ZERO_CELL, 0.0))  # the decimals' cell next to 0
    places = wide.get("decimals")
    if not integer and places is not None and 0 in (low, high) and -(10.0 ** -places) < low <= high < 10.0 ** -places:
        zero_cell = True  # the walk took the empty cell past it ([0, 0.002] with cents): every value in it reads 0.00
    if zero_cell:  # it holds 0 alone: drafted as the one value 0, which decodes as 0 (not 0.00034, a draw in the cell)
        low = high = 0.0
    if (integer and low == high) or zero_cell:
        notes.append(_one_value_note(name, low, high, bounds_epsilon, _other_tests(cells, runs, year_groups),
                                     bool(wide.get("clip"))))
    elif private:
        grid = cells
        if refine_epsilon:
            # REFINED BOUNDS: the outer cells split in ten, three times at most; what the levels leave goes to the
            # bin edges (where quantiles place them)
            low, high, grid, spent = _refined(name, values, reader, refine_epsilon, cells, low, high, integer,
                                              rows=rows)
            edges_epsilon += (REFINE_LEVELS * refine_epsilon - spent) if quantiles_see else 0
        found["outer"].extend(_outer_cells(name, grid, low, high, integer, _NumberCells(integer)))
    if not integer and low == high and not zero_cell:
        high = low + 1
    edges = [low, high]
    # bins inside one value are noise; an integer column of few integers gets one bin each (``one_bin_each``)
    if bins > 1 and not (integer and high - low + 1 <= one_bin_each) and not zero_cell:
        # bins of their own: the gaps between cells that hold rows, and the values on a bin of rows (public)
        gaps = _gaps(cells, counts, low, high, bounds_epsilon, rows, bins) if private else []
        own_bins = sorted([*gaps, *_spike_bins(spikes, gaps, low, high, bins, integer, wide.get("decimals"))])
        if quantiles_see:
            edges = _quantile_edges(name, values, reader, edges_epsilon, cells, counts, low, high, bins, integer,
                                    wide.get("decimals"), own_bins)
        else:  # quantiles too noisy to place a bin (private only): equal bins, the rest unspent
            edges = _gapped_unplaced_edges(cells, counts, low, high, bins, integer, wide.get("decimals"), own_bins)
            if integer and year_groups and not own_bins:  # an integer's years (the merge would respace own bins)
                edges = _merged_empty_ends(cells, counts, edges, bounds_epsilon)
    common = {"name": name, "null": bool(has_null), **wide}
    if integer:
        if len(edges) == 2 and high - low + 1 <= max(one_bin_each, 1):
            return IntegerColumn(low=int(low), high=int(high), **common)
        return IntegerColumn(edges=tuple(int(e) for e in edges), **common)
    return NumericColumn(edges=tuple(edges), **common)


#: The date bounds histogram's cells (public): a year each from 1900 to 2099, a decade each from 1000 to 1899 and
#: from 2100 to 2999, and the ages before and after. Dates before 1900 had one cell, whose passing clipped every one
#: of them to 1900-01-01 (births 1850-1949 drafted as 1900..1924).
_DATE_CELL_STARTS = np.array([np.datetime64(f"{y:04d}-01-01", "D").astype(np.int64)
                              for y in [*range(1000, 1900, 10), *range(1900, 2100), *range(2100, 3001, 10)]],
                             dtype=np.float64)


def _date_runs(edges: np.ndarray) -> list[tuple[int, int]]:
    """Runs of date cells within a decade of years or a century of decades, as :func:`_decade_runs` gives numbers'
    (each one's prefixes and suffixes of 2 or more cells): dates spread over the years, 50 rows a year, leave every
    year's cell short of the threshold while a decade's run passes (public: the cells alone)."""
    years = np.array([int(str(np.datetime64(int(e), "D"))[:4]) if np.isfinite(e) else -1 for e in edges[:-1]])
    width = np.diff(np.where(np.isfinite(edges), edges, np.nan))
    groups = {}
    for cell, (year, days) in enumerate(zip(years, width)):
        if year < 0:
            continue
        key = (year // 10, "year") if days < 400 else (year // 100, "decade")
        groups.setdefault(key, []).append(cell)
    return sorted({run for cells in groups.values() for run in _prefixes_and_suffixes(cells[0], cells[-1])})


_DATE_EDGES = np.concatenate([[-np.inf], _DATE_CELL_STARTS, [np.inf]])
_DATE_RUNS = tuple(_date_runs(_DATE_EDGES))
_DATE_CENTURIES = tuple(_year_groups(_DATE_EDGES, [float(np.datetime64(f"{y}-01-01", "D").astype(np.int64))
                                                     for y in (1900, 2000, 2100)]))


#: The share of a date-time column's part that goes to its times of day (:func:`_times_of_day`), and how rarely an
#: hour that holds no rows passes the level that keeps it.
TIME_OF_DAY_SHARE = Fraction(1, 4)
TIME_OF_DAY_FALSE = 0.05
#: The standard deviations of its noise by which the rows the kept hours miss must pass 0 to be spread evenly over the
#: other hours (:func:`_times_of_day`; session 65: 1 against 0, 2 and 3, on six clocks x 4 sizes x 3 budgets).
MISSED_HOURS_DEVIATIONS = 1.0


#: The posterior probability that an hour is empty above which the drafted weights give it none
#: (:func:`_hours_posterior`; session 80: 0.5 against 0.3 and 0.7, on seven clocks x 4 sizes x 3 budgets).
EMPTY_HOUR_POSTERIOR = 0.5
#: The hours' prior is fitted on this many equally spaced counts from 0 to the largest noisy count (and the noisy
#: counts), by this many rounds of EM (:func:`_hours_posterior`).
HOURS_PRIOR_POINTS = 80
HOURS_PRIOR_ROUNDS = 300


def _times_of_day(name: str, seconds: np.ndarray, reader, epsilon: Fraction,
                  rows: tuple[float, float] | None = None) -> tuple[float, ...] | None:
    """A date-time column's ``time_of_day`` weights (:class:`~dprelease.schema.binned.DatetimeColumn`) from a noisy
    histogram of its rows' hours (UTC) at ``epsilon``; None where no hour's noisy count passes t ln(1 /
    TIME_OF_DAY_FALSE) (t the noise scale; an empty hour passes with probability at most 0.05): its values are then
    drawn evenly over their bins' seconds. Lab draws binned by month were decoded at any second of the month, 03:00
    as often as 09:30.

    Each hour's weight is its posterior mean count (:func:`_hours_posterior`), which pulls the hours that passed by
    their noise back towards the others (a clock of 500 rows an hour against a level of 767 kept the hours whose
    noise was largest, at their noisy counts). The hours that do not pass keep theirs only where the rows the others
    miss pass :data:`MISSED_HOURS_DEVIATIONS` deviations of their noise (:func:`_missed_rows`), else they get 0.
    Session 65 spread those rows evenly over those hours (a clock spread over the day kept three or four hours and
    decoded every time in them); session 80 weighs them by their posterior means: over 84 cells of seven clocks
    (``benchmarks/bench_time_of_day.py``, 200 repetitions) the mean total variation distance from the real hours
    fell from 0.194 to 0.170 (the worst ratio to a cell's best rule from 2.52 to 1.20), no cell lost more than
    0.007, and hours with no rows got weight less often (1.22 a clock against 1.77).

    Privacy: (epsilon, 0)-DP, the reader's histogram (its "hours" charge); the weights read only its noisy counts and
    the profile's (post-processing)."""
    hours = (np.asarray(seconds, dtype=np.int64) % 86400) // 3600
    counts = np.asarray(reader.histogram(hours, 24, epsilon=epsilon, label=f"{name}: hours"), dtype=np.float64)
    private = not isinstance(reader, _OpenReader)
    scale = _scale(epsilon)
    passed = counts > (scale * math.log(1 / TIME_OF_DAY_FALSE) if private else 0.0)
    if not passed.any():
        return None
    kept = np.where(passed, counts, 0.0)
    if private:
        missed = 0.0 if passed.all() else _missed_rows(counts, passed, scale, rows)
        weights = np.where(passed | (missed > 0), _hours_posterior(counts, scale), 0.0)
        if weights.sum() > 0:  # else every hour that passed looks empty: their own counts, as the level says
            kept = weights
    return tuple(round(float(w), 4) for w in kept / kept.sum())


def _hours_posterior(counts: np.ndarray, scale: float) -> np.ndarray:
    """Each hour's posterior mean count given the 24 noisy ``counts``, under the prior of hours' counts that makes
    those counts likeliest (Kiefer and Wolfowitz's nonparametric maximum likelihood, fitted by EM over
    :data:`HOURS_PRIOR_POINTS` counts from 0 to the largest noisy count and the noisy counts themselves); 0 where the
    posterior puts more than :data:`EMPTY_HOUR_POSTERIOR` on an empty hour. The noise is discrete Laplace of scale t, whose likelihood of a
    noisy count x given a count c is proportional to exp(-|x - c| / t). An empirical Bayes estimate: it learns from
    the hours together whether they are alike (a clock spread over the day: each is pulled to the others) or open
    and closed (office hours: the closed ones to 0). Post-processing of noisy counts."""
    support = np.unique(np.concatenate([np.linspace(0.0, max(float(counts.max()), 1.0), HOURS_PRIOR_POINTS),
                                        np.maximum(counts, 0.0)]))  # each count its own point: no rounding
    log_likelihood = -np.abs(counts[:, None] - support[None, :]) / scale
    likelihood = np.exp(log_likelihood - log_likelihood.max(axis=1, keepdims=True))  # no row underflows to 0
    prior = np.full(len(support), 1 / len(support))
    for _ in range(HOURS_PRIOR_ROUNDS + 1):
        joint = likelihood * prior
        posterior = joint / np.maximum(joint.sum(axis=1, keepdims=True), np.finfo(np.float64).tiny)
        prior = posterior.mean(axis=0)
    return np.where(posterior[:, 0] > EMPTY_HOUR_POSTERIOR, 0.0, posterior @ support)


def _missed_rows(counts: np.ndarray, passed: np.ndarray, scale: float, rows: tuple[float, float] | None) -> float:
    """The rows the hours that passed miss, by inverse-variance weighting of the others' noisy sum and (where given)
    the column's noisy row count less the kept counts; 0 unless the estimate passes
    :data:`MISSED_HOURS_DEVIATIONS` deviations of its noise. A discrete Laplace count of scale t has variance about
    2 t^2. Post-processing of noisy counts."""
    cell_variance = 2 * scale ** 2
    estimates = [(float(counts[~passed].sum()), cell_variance * np.count_nonzero(~passed))]
    if rows is not None and math.isfinite(rows[0]):
        estimates.append((rows[0] - float(counts[passed].sum()), rows[1] + cell_variance * np.count_nonzero(passed)))
    precision = sum(1 / variance for _, variance in estimates)
    missed = sum(value / variance for value, variance in estimates) / precision
    return missed if missed > MISSED_HOURS_DEVIATIONS * math.sqrt(1 / precision) else 0.0


def _dates(name, kind, values, reader, main, has_null, wide, found, rows: float = math.inf,
           clock_rows: tuple[float, float] | None = None, taken: Fraction = Fraction(0)) -> Column:
    """``taken``: what the column spent from its bounds' part already (its step, :func:`_written_step`)."""
    per_day = 86400 if kind == "datetime" else 1
    clock = main * TIME_OF_DAY_SHARE if kind == "datetime" else Fraction(0)  # a date-time's times of day, after
    main -= clock + taken
    days = values // per_day
    edges = _DATE_EDGES
    private = isinstance(reader, PrivateColumnReader)
    # where it pays, a third of the bounds' part refines them by the calendar (a year's months, then a month's days),
    # as a number's are refined in tenths: a two-week log was drafted as its whole year by month
    refine = main / 3 / DATE_REFINE_LEVELS if private and refining_pays(main / 3 / DATE_REFINE_LEVELS, rows) else 0
    main -= refine * DATE_REFINE_LEVELS
    counts: list[float] = []
    bounds = _bounds(name, days.astype(np.float64), reader, main, edges, integer=True, runs=_DATE_RUNS,
                     wide=_DATE_CENTURIES, rows=rows, cut_out=found["wide cut"], edge_out=found["wide edge"],
                     counts_out=counts)
    if bounds is None:  # no bins to draw times in: the times of day's part (and the refining's) stays unspent
        return _no_bounds(name, kind, main, _other_tests(edges, _DATE_RUNS, _DATE_CENTURIES), has_null, wide,
                          found["no bounds"])
    low, high = int(bounds[0]), int(bounds[1])
    if private:
        grid = edges
        sides = _thin_ends(edges, counts, low, high)
        if refine and any(sides):  # REFINED BOUNDS: the thin outer cells split by the calendar, twice at most
            refined_low, refined_high, grid, _ = _refined(name, days.astype(np.float64), reader, refine, edges, low,
                                                          high, True, rows=rows, split=_calendar_subcells,
                                                          levels=DATE_REFINE_LEVELS, sides=sides)
            low, high = int(refined_low), int(refined_high)
        found["outer"].extend(_outer_cells(name, grid, low, high, True, _YearCells()))
    # the years that hold the rows (all of the bounds but empty years at an end, :func:`_empty_end_cells`, where
    # that makes the bins finer) set the unit: bins of a day up to two months, of a month up to three years, of a
    # quarter up to ten (12-40 bins, as months' up to 36: whole years made 2021-2024 four bins, its seasons lost;
    # session 65), then of a year
    def calendar_unit(span: int) -> tuple[str, int | None]:
        return (("day", None) if span <= 62 else ("month", None) if span <= 3 * 366 else
                ("month", 3) if span <= 10 * 366 else ("year", None))

    core_low, core_high = _empty_end_cells(edges, counts, low, high, main) if private else (low, high)
    if calendar_unit(core_high - core_low) == calendar_unit(high - low):
        core_low, core_high = low, high  # the same bins over the rows either way: the empty years keep theirs
    unit, width = calendar_unit(core_high - core_low)
    if "%d" not in wide.get("format", "%d") and unit == "day":
        unit = "month"  # a month written without its day (2023-05): bins of days would split what the table cannot
    text = lambda d: str(np.datetime64(d, "D"))  # noqa: E731
    binning = {"low": text(low), "high": text(high), "unit": unit, "width": width}
    core = DateColumn(name=name, low=text(core_low), high=text(core_high), unit=unit, width=width)
    coarse = (unit, width) in (("month", 3), ("year", None))  # quarters or years: a dense year may take months
    months = _dense_year_months(edges, counts, core_low, core_high, len(core.thresholds) + 1,
                                _scale(main) if private else 0.0) if coarse else []
    if (core_low, core_high) != (low, high) or months:
        # the empty years at an end one bin each, the calendar's bins between, and a dense year's by month
        days = [low, *([core_low] if core_low > low else []), *sorted(set(core.thresholds) | set(months)),
                *([core_high + 1] if core_high < high else []), high]
        binning = {"edges": [text(d) for d in days]}
    if kind == "date":
        return DateColumn(name=name, **binning, null=bool(has_null), **wide)
    if "edges" in binning:
        binning["edges"][-1] += "T23:59:59"
    else:
        binning["high"] += "T23:59:59"
    return DatetimeColumn(name=name, **binning, null=bool(has_null),
                          time_of_day=_times_of_day(name, values, reader, clock, clock_rows), **wide)


#: How many times the rows of an average bin a year's quarter (or its one bin) must hold, and the share of the rows the
#: year must hold, for the year to be binned by month (:func:`_dense_year_months`): births around a mode (at most twice
#: an average year) and a growing service's sign-ups keep their calendar bins.
DENSE_YEAR = 2.0
DENSE_SHARE = 1 / 3


def _dense_year_months(cells: np.ndarray, counts: Sequence[float], low: int, high: int, bins: int,
                       scale: float) -> list[int]:
    """The first days of the months of each year within ``low``..``high`` that holds :data:`DENSE_SHARE` of the rows
    and whose bins (quarters, or the year whole) would each hold more than :data:`DENSE_YEAR` times the rows of an
    average one of the ``bins``, by the bounds histogram's noisy year counts (public), where the year's count also
    stands out of its noise (``scale`` ln(#cells / 0.001); an open draft's counts are exact: ``scale`` 0). A new user's last check-ins over 2017-2024, two thirds of them in
    2024, were binned by quarter, so the model's rows spread over October to December; by month, over November. The
    year counts cannot see inside a year (orders half of them in December): its quarters' average is what it shows.
    Post-processing: no charge."""
    counts = np.asarray(counts, dtype=np.float64)
    inside = np.flatnonzero(np.isfinite(cells[:-1]) & np.isfinite(cells[1:]) & (cells[1:] > low)
                            & (cells[:-1] <= high))
    years = [c for c in inside if cells[c + 1] - cells[c] <= 366]
    total = float(np.maximum(counts[inside], 0).sum())
    if not years or total <= 0:
        return []
    level = scale * math.log((len(cells) - 1) / FALSE_CELL)
    out = []
    for cell in years:
        first, end = int(cells[cell]), int(cells[cell + 1])  # the year's first day, and the next year's
        held = (min(end, high + 1) - max(first, low)) / (end - first)  # the share of the year inside the bounds
        year_bins = max(1.0, bins * held * (end - first) / (high + 1 - low))  # the year's bins under the unit
        if counts[cell] > max(level, DENSE_YEAR * year_bins * total / bins, DENSE_SHARE * total):
            year = int(str(np.datetime64(first, "D"))[:4])
            out.extend(d for d in (int(np.datetime64(f"{year:04d}-{m:02d}-01", "D").astype(np.int64))
                                   for m in range(1, 13)) if low < d <= high)
    return out


def _empty_end_cells(cells: np.ndarray, counts: Sequence[float], low: int, high: int,
                     epsilon: Fraction) -> tuple[int, int]:
    """The days ``low``..``high`` less the bounds histogram's whole cells (years, or decades past 2099) at either end
    that look empty together, two or more: their noisy sum (not clipped at 0, so that empty cells' noise sums toward
    0) within :data:`WIDE_REST_DEVIATIONS` of its noise and under a tenth of the rows inside the bounds, as an
    integer's years' end bins are merged (:func:`_merged_empty_ends`). Visits over 2018-2024 drafted up to 2059 were
    binned by year (the span past ten years), their seasons lost, and the empty years given bins of their own; the
    caller bins the years that hold rows by their own span and gives each empty end one bin. Public: post-processing
    of the noisy counts."""
    counts = np.asarray(counts, dtype=np.float64)
    inside = np.flatnonzero(np.isfinite(cells[:-1]) & np.isfinite(cells[1:]) & (cells[:-1] >= low)
                            & (cells[1:] <= high + 1))
    if len(inside) < 3:
        return low, high
    held, one_each = counts[inside], np.ones(len(inside))
    share = held.sum() / 10
    first = _empty_end_run(held[:len(held) - 1], one_each[:len(held) - 1], epsilon, share)
    last = _empty_end_run(held[::-1][:len(held) - 1], one_each[:len(held) - 1], epsilon, share)
    # the cells of such a stretch up to its change point from the rows outward hold rows the sum's noise hides (the
    # visits of 2024 beside six empty years): they stay with the rows
    first -= _change_point(held[:first][::-1], epsilon) if first else 0
    last -= _change_point(held[len(held) - last:], epsilon) if last else 0
    first, last = (first if first >= 2 else 0), (last if last >= 2 else 0)
    if not (first or last) or first + last > len(held) - 1 or not held.sum() > 0:
        return low, high
    core_low = int(cells[inside[first]]) if first else low
    core_high = int(cells[inside[len(inside) - last]]) - 1 if last else high
    return core_low, core_high


#: How many times a date's outer cells are split by the calendar (:func:`_calendar_subcells`): a year into months,
#: then a month into days (a decade into years, then a year into months).
DATE_REFINE_LEVELS = 2
#: A date's outer cell is refined only where it holds under this share of the rows of the cell inside it
#: (:func:`_thin_ends`): dates spread evenly over whole years (hire dates 2005-2025) lost 1-6 % of their rows to cuts
#: of months that only looked empty, where the year cells were already their bounds.
DATE_THIN_SHARE = 0.5


def _thin_ends(edges: np.ndarray, counts: Sequence[float], low: int, high: int) -> tuple[bool, bool]:
    """Which of a date's drafted bounds to refine (:func:`_dates`): both where the bounds lie in one cell (a two-week
    log in its year), else an end whose outer cell's noisy count is under :data:`DATE_THIN_SHARE` of the next cell
    inward's (the data start or end inside it: births' tails, the last weeks of a year). Public: noisy counts."""
    first = int(np.searchsorted(edges, low, side="right")) - 1
    last = int(np.searchsorted(edges, high, side="right")) - 1
    if first == last:
        return True, True
    thin = lambda outer, inner: counts[outer] < DATE_THIN_SHARE * max(counts[inner], 0.0)  # noqa: E731
    return thin(first, first + 1), thin(last, last - 1)


def _calendar_subcells(first: float, last: float) -> np.ndarray | None:
    """The days [first, last) (since 1970) split by the calendar: a span of several years into its years, a year into
    its months, a month into its days; None for a day, or a span that starts or ends off those edges. Public."""
    if not (np.isfinite(first) and np.isfinite(last)) or last - first <= 1:
        return None
    start, stop = np.datetime64(int(first), "D"), np.datetime64(int(last), "D")
    unit = "Y" if last - first > 366 else "M" if last - first > 31 else "D"
    low, high = start.astype(f"datetime64[{unit}]"), stop.astype(f"datetime64[{unit}]")
    if low.astype("datetime64[D]") != start or high.astype("datetime64[D]") != stop or high - low < 2:
        return None
    return np.arange(low, high + 1).astype("datetime64[D]").astype(np.int64).astype(np.float64)


def _keys(raw, text, row_class) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A column's distinct texts, each row's position among them, and which rows hold one (not NULL): the keys a
    stability histogram selects from. Typed values (numbers or booleans drafted as text) are factorized by their
    text. Parsing only: nothing is counted."""
    if isinstance(raw, TypedColumn):
        factor = FactorColumn.from_values(np.where(~raw.missing, raw.values.astype(object), None))
        text, index = texts(factor.uniques, strip=True), factor.index
    else:
        index = raw.index
    return text, index, (row_class != C_NULL) & (index >= 0)


def _few_values(column: _Profiled, reader, epsilon: Fraction, delta_share: Fraction, bins: int,
                mostly: list[str] | None = None, spiky: list[str] | None = None,
                codes: int | None = None, spikes: list[tuple[float, float]] | None = None,
                written: Mapping[str, object] | None = None) -> Column | None:
    """A number column whose few values hold nearly all its rows, drafted as those values (a categorical column
    with an ``other`` bucket), or None where it is not one.

    Bins spread a synthetic value evenly over its bin, so a fee that is always 19.99, 29.99 or 49.99 came out as
    15.36 and 27.7, one of 0, 25 or 50 as 13 and 37, and ratings in half steps as 3.42. A stability histogram of the
    column's texts at (``epsilon``, ``delta_share``) keeps the values held by many rows
    (:meth:`~PrivateColumnReader.keys`); the column is drafted as them where at most ``bins`` pass, their noisy
    counts hold at least :data:`FEW_VALUES_SHARE` of the profile's noisy count of non-NULL values (the classes that
    stand out of its noise, as :func:`_kind` reads them) less :data:`FEW_VALUES_DEVIATIONS` deviations of the two
    counts' noise, and, for integers, they span more than ``bins`` (a score of
    0..9 is drafted exactly by one bin per integer, as a number).
    Privacy: (epsilon, delta_share)-DP, the stability histogram (Vadhan 2017, Prop. 3.5), which releases the passing
    keys' noisy counts too; the choice is post-processing of those and of the profile. Openly: every value, where
    at most ``bins`` are present. Where the kept values hold at least :data:`MOSTLY_FEW_SHARE` of the rows but not
    nearly all (HTTP statuses: 200 on 85 % of a new user's requests, four others under the keys' threshold), the
    column's name and those values (selected privately: public) go to ``mostly``, for a note; where they hold at
    least :data:`SPIKY_SHARE`, its name goes to ``spiky`` (:data:`ONE_BIN_EACH`).
    ``codes``: a column of codes written to a width (:func:`zero_padded`: 02134 beside 10001) is drafted as up to
    ``codes`` of them where they hold :data:`MOSTLY_FEW_SHARE` of its rows (seven 3-digit postcodes: each code is
    what matters, not its range), else as integers written with their digits (thousands of postcodes, none common).
    ``spikes``: where the column is not drafted as its values, gets its sharp spikes (:func:`_sharp_spikes`, its texts
    read as the column's ``written`` format reads them: $4.99), for a bin of its own each (:func:`_spike_bins`)."""
    text, index, rows = _keys(column.raw, column.text, column.row_class)
    most = bins if codes is None else max(bins, codes)
    kept, counts = reader.keys(index[rows], len(text), epsilon=epsilon, delta=delta_share, max_keys=most + 1,
                               label=f"{column.name}: values", with_counts=True)
    profile = _counted(column.counts, column.noise)
    present = float(profile.sum() - profile[C_NULL])
    # the noise of the kept values' sum and of the profile's (a discrete Laplace count of scale t: variance ~ 2 t^2)
    summed = np.count_nonzero(profile) - (profile[C_NULL] > 0)
    slack = FEW_VALUES_DEVIATIONS * math.sqrt(2 * len(kept) * _scale(epsilon) ** 2
                                              + 2 * summed * (FEW_VALUES_SHARE * column.noise) ** 2)
    if codes is not None and 0 < len(kept) <= most and float(np.sum(counts)) >= MOSTLY_FEW_SHARE * present:
        values = sorted((str(text[i]) for i in kept), key=_number_first)
        return CategoricalColumn(name=column.name, values=tuple(values), null=bool(column.has_null), other=True)
    if spiky is not None and 0 < len(kept) <= bins and float(np.sum(counts)) >= SPIKY_SHARE * present:
        spiky.append(column.name)
    if not 0 < len(kept) <= bins or float(np.sum(counts)) + slack < FEW_VALUES_SHARE * present:
        if spikes is not None:
            # (openly the fullest values are kept with their counts: one not kept holds at most the least kept's)
            unkept = selection_threshold(epsilon=epsilon, delta=float(delta_share)) \
                if isinstance(reader, PrivateColumnReader) else float(min(counts)) if len(kept) > most else 0.0
            reading = NumericColumn(name="_", edges=(0.0, 1.0), **(written or {}))  # as _written_decimals reads
            read = {i: number_text(reading, str(text[i]).strip()) for i in kept}
            spikes.extend(_sharp_spikes(kept, counts, read, present / bins, unkept))
        if mostly is not None and 0 < len(kept) <= bins and float(np.sum(counts)) >= MOSTLY_FEW_SHARE * present:
            shown = ", ".join(sorted((str(text[i]) for i in kept), key=_number_first))
            mostly.append(f"{column.name!r} ({shown})")
        return None
    if column.kind == "integer":
        numbers = [value for other, value, _ in (_number_first(str(text[i])) for i in kept) if not other]
        if not numbers or max(numbers) - min(numbers) + 1 <= bins:  # bounds then hold one bin per integer: exact
            return None
    values = sorted((str(text[i]) for i in kept), key=_number_first)
    return CategoricalColumn(name=column.name, values=tuple(values), null=bool(column.has_null), other=True)


#: How many times the rows of every value within 1 of it a spike must hold (:func:`_sharp_spikes`).
SPIKE_SHARPNESS = 1.5


def _sharp_spikes(kept: Sequence[int], counts: Sequence[float], text: Mapping[int, str], share: float,
                  threshold: float) -> list[tuple[float, float]]:
    """The kept values (positions ``kept``, their ``text`` as numbers are read, noisy ``counts``), each with the step
    its text is written to (0.01 for 4.99; 1 for 40), that are numbers holding ``share`` rows (a
    bin's) and :data:`SPIKE_SHARPNESS` times the rows of every value within 1 of them: a kept one's noisy count, one
    not kept at most about the keys' ``threshold``. Adult's hours, 40 on 47 % of the rows, is a spike; a Poisson
    count's 11 and 12, 11 % each side by side, are a smooth mode, which equal bins or quantiles already place (as
    spikes the bins around them grew, and the decoded visits' KS went 0.068 -> 0.130). Public: the keys' release."""
    values, steps = {}, {}
    for i, count in zip(kept, counts):
        other, value, written = _number_first(str(text[i]))
        if not other and math.isfinite(value):
            values[value] = float(count)
            _, _, fraction = written.strip().partition(".")
            steps[value] = 10.0 ** -len(fraction) if fraction.isdigit() else 1.0
    sharp = []
    for value, count in values.items():
        near = [c for v, c in values.items() if v != value and abs(v - value) <= 1]
        if count >= share and count >= SPIKE_SHARPNESS * max([threshold, *near]):
            sharp.append((value, steps[value]))
    return sharp


def _number_first(text: str) -> tuple[int, float, str]:
    """Sorts numbers by value, then any other text."""
    try:
        return 0, float(text), text
    except ValueError:
        return 1, 0.0, text


#: How each format the draft finds writes a date, for its note.
_FORMAT_EXAMPLES = {"%d.%m.%Y": "day first with dots (31.03.2022)", "%Y/%m/%d": "year first with slashes (2022/03/31)",
                    "%Y-%m": "as months, year first without a day (2023-05: read as the month's first day)",
                    "%Y%m%d": "as eight digits, year first (20240301)",
                    "%m/%Y": "as months, month first without a day (05/2023: read as the month's first day)",
                    "%d/%m/%Y": "day first with slashes (31/03/2022: values whose first field is above 12 stood out "
                                "of the noise, none whose second is)",
                    "%m/%d/%Y": "month first with slashes (03/31/2022: values whose second field is above 12 stood "
                                "out of the noise, none whose first is)"}


def _found_dates_notes(by_format: Mapping[str, list[str]], profiles: Sequence[_Profiled]) -> list[str]:
    """One note for the columns drafted as dates in each format the draft found (:func:`_time_of_day`), and one for
    the slash dates whose order the profile could not tell (left categorical). Public: names, and formats chosen
    from the noisy histograms."""
    notes = []
    for text_format, names in by_format.items():
        if time_of_day(text_format):
            notes.append(f"column(s) {names} drafted as times of day written {text_format} (14:05): read as that time "
                         "on 1970-01-01 and written back as the time alone; their bounds are the whole day "
                         "(public), by hour; if the table writes them otherwise, correct the format; if they are "
                         "durations (a call's 00:14:23, a job's 36:15:00), not clocks, declare them as seconds written "
                         "h:mm:ss, e.g. {\"type\": \"integer\", \"format\": \"h:mm:ss\", \"bounds\": [0, 172800], "
                         "\"edges\": [0, 900, 3600, 14400, 86400, 172800], \"clip\": true}: a time of day cannot "
                         "hold one past 23:59:59, and hour bins lose short ones")
            continue
        short_year = "%y" in text_format  # the year written last with two digits (31.03.22)
        family = next(f for f in _FORMAT_EXAMPLES if text_format.replace("%y", "%Y", 1).startswith(f))
        clock = text_format[len(family):]
        timed = f", with a time of day ({clock.strip()})" if clock else ""
        pivot = (f"; their years have two digits, read as {TWO_DIGIT_PIVOT}-99 in the 1900s and 00-"
                 f"{TWO_DIGIT_PIVOT - 1} in the 2000s (as POSIX, Python and the engines read them), so a date before "
                 f"1969 (a birth date) reads a century late: write such years with four digits" if short_year else "")
        example = _FORMAT_EXAMPLES[family].replace("2022", "22") if short_year else _FORMAT_EXAMPLES[family]
        notes.append(f"column(s) {names} drafted as dates written {example}{timed}: the draft declares "
                     f'"format": "{text_format}", and synth writes their values back so; if the table writes them '
                     f"otherwise, correct the format{pivot}")
    for order in ("neither", "both"):
        names = [p.name for p in profiles if p.slash_order == order]
        if names:
            why = ("no value with a first or second field above 12 stood out of the noise" if order == "neither" else
                   "values of both orders stood out of the noise (31/03/2022 and 03/31/2022)")
            notes.append(f"column(s) {names} look like dates written with slashes, but whether the day or the month "
                         f"comes first cannot be told ({why}), so they are drafted as text; declare each a date with "
                         'its "format" ("%d/%m/%Y" or "%m/%d/%Y") and bounds (--date-format col=%d/%m/%Y)')
    return notes


def _few_values_note(names: list[str], bins: int) -> str:
    """The note naming the number columns drafted as their few values (:func:`_few_values`). Public: the names."""
    return (f"column(s) {names} drafted as categories: at most {bins} values (--bins) hold nearly all their rows (a "
            "fee that is 19.99, 29.99 or 49.99; ratings in half steps), so their synthetic values are those values, "
            "not numbers spread evenly over bins (15.36 for such a fee); rarer values go to other. To draft one as a "
            "range instead, declare its kind (--types col=numeric, or col=integer)")


def _categories(name, raw, text, row_class, reader, main, delta_share, max_categories, has_null,
                keyless: list[str]) -> Column:
    text, index, rows = _keys(raw, text, row_class)
    if isinstance(reader, PrivateColumnReader) and delta_share == 0:
        keyless.append(name)  # one note names them all
        return CategoricalColumn(name=name, values=(), null=bool(has_null), other=True)
    chosen = reader.keys(index[rows], len(text), epsilon=main, delta=delta_share, max_keys=max_categories,
                         label=f"{name}: categories")
    values = sorted(str(text[i]) for i in chosen)
    other = isinstance(reader, PrivateColumnReader) or len(chosen) < len(np.unique(index[rows]))
    return CategoricalColumn(name=name, values=tuple(values), null=bool(has_null), other=bool(other))

