/* k8slb.reading._yamltree: YAML text straight into k8slb's trees (YMap, YSeq and
 * scalars, with positions), from libyaml's parser in C.
 *
 * The Python builder (yamlcompose._document) takes its events from the same libyaml, but
 * each event becomes a Python object first (its marks too), and each is then read back in
 * a Python loop: two thirds of composing a manifest. Here the events never leave C. What
 * is rare or subtle stays in Python and is called from here, so that the two builders
 * share it: resolving a scalar that may not be text, the merge key and merging, a key that
 * is not text, and the errors libyaml reports (built as ruamel.yaml builds them). The
 * Python builder is the fallback where this module was not built, and a test compares the
 * two on every fixture, the corpus and generated documents.
 */

#include <string.h>

#include "yamltree.h"

/* What `configure` is given, once, by yamlcompose.py. */
static PyObject *ymap_type, *yseq_type;     /* YMap, YSeq */
PyObject *problem_type;                     /* YAMLProblem */
static PyObject *limit_type;                /* _LimitExceeded */
static PyObject *resolve_scalar;            /* (tag, plain, value) -> the scalar's data */
static PyObject *is_merge_key;              /* (tag, plain, value) -> bool */
static PyObject *key_text;                  /* a key that is not text -> its text */
static PyObject *apply_merges;              /* (mapping, [(value, pos)]) -> None */
static PyObject *libyaml_error;             /* (kind, problem, context, marks...) -> error */
PyObject *nesting_message;
static PyObject *bomb_message;
long max_nesting;
static long long max_expanded;
static char typed_first[128]; /* plain scalars starting with these may not be text */
static int any_first;         /* the resolver may type a plain scalar whatever its start */

PyObject *empty_tuple;
static PyObject *str_pos, *str_spots, *str_item_pos;

/* Untagged plain scalars that may not be text, by their text: what they resolved to (a
 * number, a boolean, None or the text: never changed by a reader). A manifest repeats a
 * few (ports, `true`, replica counts) thousands of times. */
static PyObject *typed_plain;

/* The caches of plain scalars by their text (this one, and the fixer's tags): bounded, a
 * file may be hostile. */
#define PLAIN_CACHE_MAX_ENTRIES 100000
#define PLAIN_CACHE_MAX_LENGTH 64

int
surely_text(const unsigned char *value, size_t length)
{
    return !any_first && length > 0 && value[0] < 128 && !typed_first[value[0]];
}

PyObject *
cached_plain(PyObject *cache, PyObject *text, size_t length)
{
    if (length > PLAIN_CACHE_MAX_LENGTH)
        return NULL;
    PyObject *known = PyDict_GetItemWithError(cache, text);
    Py_XINCREF(known);
    return known;
}

int
keep_plain(PyObject *cache, PyObject *text, size_t length, PyObject *value)
{
    if (length > PLAIN_CACHE_MAX_LENGTH || PyDict_GET_SIZE(cache) >= PLAIN_CACHE_MAX_ENTRIES)
        return 0;
    return PyDict_SetItem(cache, text, value);
}

enum { AWAIT_KEY, MERGE_KEY, HAVE_KEY };

/* A libyaml mark as k8slb's 1-based line (counted from the text's first line in its file)
 * and column. */
#define LINE(mark, offset) ((long)(mark).line + 1 + (offset))
#define COLUMN(mark) ((long)(mark).column + 1)

typedef struct {
    PyObject *node;     /* the open YMap or YSeq (a strong reference) */
    PyObject *table;    /* its spots (YMap) or item_pos (YSeq): borrowed from the node */
    int is_map;
    int state;          /* a mapping's: what comes next */
    PyObject *key;      /* HAVE_KEY: the key (strong) */
    long key_line, key_column;
    PyObject *merges;   /* a mapping's `<<` values, [(value, pos)], or NULL */
    PyObject *anchor;   /* the anchor naming this collection, or NULL */
} Open;

/* An anchor: [value, pos, start, size], size None while its collection is open. */
enum { A_VALUE, A_POS, A_START, A_SIZE };

static PyObject *
position(long line, long column)
{
    return Py_BuildValue("(ll)", line, column);
}

static void
set_problem(PyObject *type, PyObject *message, long line, long column)
{
    PyObject *error = PyObject_CallFunction(type, "Oll", message, line, column);
    if (error != NULL) {
        PyErr_SetObject(type, error);
        Py_DECREF(error);
    }
}

void
problem(const char *format, PyObject *argument, long line, long column)
{
    PyObject *message = argument == NULL ? PyUnicode_FromString(format)
                                         : PyUnicode_FromFormat(format, argument);
    if (message != NULL) {
        set_problem(problem_type, message, line, column);
        Py_DECREF(message);
    }
}

/* The parser's error as ruamel.yaml raises it (yamlcompose._problem_from reads it). */
void
raise_parser_error(yaml_parser_t *parser)
{
    if (parser->error == YAML_MEMORY_ERROR) {
        PyErr_NoMemory();
        return;
    }
    PyObject *error = PyObject_CallFunction(
        libyaml_error, "iyy(nnn)(nnn)nn", (int)parser->error, parser->problem, parser->context,
        (Py_ssize_t)parser->problem_mark.line, (Py_ssize_t)parser->problem_mark.column,
        (Py_ssize_t)parser->problem_mark.index, (Py_ssize_t)parser->context_mark.line,
        (Py_ssize_t)parser->context_mark.column, (Py_ssize_t)parser->context_mark.index,
        (Py_ssize_t)parser->problem_offset, (Py_ssize_t)parser->problem_value);
    if (error != NULL) {
        PyErr_SetObject((PyObject *)Py_TYPE(error), error);
        Py_DECREF(error);
    }
}

PyObject *
text_of(const unsigned char *bytes, size_t length)
{
    return PyUnicode_DecodeUTF8((const char *)bytes, (Py_ssize_t)length, "strict");
}

static PyObject *
optional_text(const unsigned char *bytes)
{
    if (bytes == NULL)
        Py_RETURN_NONE;
    return PyUnicode_FromString((const char *)bytes);
}

/* A scalar event's data: text as it is where no type can start like it, else resolved. */
static PyObject *
scalar_data(yaml_event_t *event)
{
    const unsigned char *value = event->data.scalar.value;
    size_t length = event->data.scalar.length;
    int plain = event->data.scalar.plain_implicit;
    PyObject *text = text_of(value, length);
    if (text == NULL)
        return NULL;
    if (event->data.scalar.tag == NULL && (!plain || surely_text(value, length)))
        return text;
    int cached = event->data.scalar.tag == NULL && plain;
    if (cached) {
        PyObject *known = cached_plain(typed_plain, text, length);
        if (known != NULL || PyErr_Occurred()) {
            Py_DECREF(text);
            return known;
        }
    }
    PyObject *tag = optional_text(event->data.scalar.tag);
    if (tag == NULL) {
        Py_DECREF(text);
        return NULL;
    }
    PyObject *data =
        PyObject_CallFunctionObjArgs(resolve_scalar, tag, plain ? Py_True : Py_False, text, NULL);
    Py_DECREF(tag);
    if (data != NULL && cached && keep_plain(typed_plain, text, length, data) < 0)
        Py_CLEAR(data);
    Py_DECREF(text);
    return data;
}

/* Whether a key scalar is the merge key. Its data is the text `<<` only when its text is
 * (a scalar resolved to text is its own text), so the data stands for the text. */
static int
merge_key(yaml_event_t *event, PyObject *data)
{
    if (!PyUnicode_Check(data) || PyUnicode_CompareWithASCIIString(data, "<<") != 0)
        return 0;
    PyObject *tag = optional_text(event->data.scalar.tag);
    if (tag == NULL)
        return -1;
    PyObject *answer = PyObject_CallFunctionObjArgs(
        is_merge_key, tag, event->data.scalar.plain_implicit ? Py_True : Py_False, data, NULL);
    Py_DECREF(tag);
    if (answer == NULL)
        return -1;
    int result = PyObject_IsTrue(answer);
    Py_DECREF(answer);
    return result;
}

static PyObject *
new_collection(int is_map, PyObject *pos, PyObject **table)
{
    PyTypeObject *type = (PyTypeObject *)(is_map ? ymap_type : yseq_type);
    PyObject *node = type->tp_new(type, empty_tuple, NULL);
    if (node == NULL)
        return NULL;
    *table = is_map ? PyDict_New() : PyList_New(0);
    if (*table == NULL || PyObject_SetAttr(node, is_map ? str_spots : str_item_pos, *table) < 0 ||
        PyObject_SetAttr(node, str_pos, pos) < 0) {
        Py_XDECREF(*table);
        Py_DECREF(node);
        return NULL;
    }
    Py_DECREF(*table); /* the node holds it */
    return node;
}

typedef struct {
    long offset;
    Open *open;
    int depth;
    PyObject *anchors;          /* name -> anchor record */
    long long expanded;         /* nodes so far, aliases at their expanded size */
    PyObject *root, *root_pos;  /* strong */
    int parser_failed;          /* the error is libyaml's: no event is left to read */
    int over_limit;             /* the error is a limit's: no truer report is looked for */
} Builder;

static void
close_all(Builder *b)
{
    for (int i = 0; i < b->depth; i++) {
        Py_XDECREF(b->open[i].node);
        Py_XDECREF(b->open[i].key);
        Py_XDECREF(b->open[i].merges);
        Py_XDECREF(b->open[i].anchor);
    }
    b->depth = 0;
}

static int
define_anchor(Builder *b, const unsigned char *name, PyObject *record, long line, long column)
{
    PyObject *key = PyUnicode_FromString((const char *)name);
    if (key == NULL)
        return -1;
    PyObject *first = PyDict_GetItemWithError(b->anchors, key);
    if (first != NULL) {
        PyObject *first_pos = PyList_GET_ITEM(first, A_POS);
        PyObject *message = PyUnicode_FromFormat(
            "the anchor &%U is defined twice (first on line %S)", key,
            PyTuple_GET_ITEM(first_pos, 0));
        if (message != NULL) {
            set_problem(problem_type, message, line, column);
            Py_DECREF(message);
        }
        Py_DECREF(key);
        return -1;
    }
    int failed = PyErr_Occurred() != NULL || PyDict_SetItem(b->anchors, key, record) < 0;
    Py_DECREF(key);
    return failed ? -1 : 0;
}

/* Put a node (a new reference, taken) where the open collections say; `pos` is NULL when
 * it is not needed yet (a scalar value in a mapping); `opens` for a collection's start. */
static int
place(Builder *b, PyObject *value, long line, long column, PyObject *pos, int opens,
      yaml_event_t *scalar_event)
{
    int result = -1;
    PyObject *own_pos = NULL; /* `pos`, or one made when first needed (a strong reference) */
#define NEED_POS()                                                                            \
    (own_pos != NULL ||                                                                       \
     (own_pos = pos != NULL ? (Py_INCREF(pos), pos) : position(line, column)) != NULL)
    if (b->depth == 0) {
        if (!NEED_POS())
            goto done;
        Py_XSETREF(b->root, value);
        Py_INCREF(value);
        Py_INCREF(own_pos);
        Py_XSETREF(b->root_pos, own_pos);
    }
    else {
        Open *parent = &b->open[b->depth - 1];
        if (!parent->is_map) {
            if (!NEED_POS() || PyList_Append(parent->node, value) < 0 ||
                PyList_Append(parent->table, own_pos) < 0)
                goto done;
        }
        else if (parent->state == AWAIT_KEY) {
            if (opens || PyObject_TypeCheck(value, (PyTypeObject *)ymap_type) ||
                PyObject_TypeCheck(value, (PyTypeObject *)yseq_type)) {
                problem("a mapping key that is not a scalar is not supported", NULL, line, column);
                goto done;
            }
            if (scalar_event != NULL) {
                int merging = merge_key(scalar_event, value);
                if (merging < 0)
                    goto done;
                if (merging) {
                    parent->state = MERGE_KEY;
                    result = 0;
                    goto done;
                }
            }
            PyObject *key;
            if (PyUnicode_CheckExact(value)) {
                key = value;
                Py_INCREF(key);
            }
            else if ((key = PyObject_CallOneArg(key_text, value)) == NULL)
                goto done;
            PyUnicode_InternInPlace(&key);
            int known = PyDict_Contains(parent->table, key);
            if (known != 0) {
                if (known > 0)
                    problem("duplicate key %R in a mapping", key, line, column);
                Py_DECREF(key);
                goto done;
            }
            parent->key = key;
            parent->key_line = line;
            parent->key_column = column;
            parent->state = HAVE_KEY;
            result = 0;
            goto done;
        }
        else if (parent->state == MERGE_KEY) {
            parent->state = AWAIT_KEY;
            if (!NEED_POS())
                goto done;
            if (parent->merges == NULL && (parent->merges = PyList_New(0)) == NULL)
                goto done;
            PyObject *merge = PyTuple_Pack(2, value, own_pos);
            if (merge == NULL || PyList_Append(parent->merges, merge) < 0) {
                Py_XDECREF(merge);
                goto done;
            }
            Py_DECREF(merge);
        }
        else {
            PyObject *key = parent->key;
            parent->key = NULL;
            parent->state = AWAIT_KEY;
            PyObject *spot = Py_BuildValue("(llll)", parent->key_line, parent->key_column, line,
                                           column);
            int failed = spot == NULL || PyDict_SetItem(parent->node, key, value) < 0 ||
                         PyDict_SetItem(parent->table, key, spot) < 0;
            Py_XDECREF(spot);
            Py_DECREF(key);
            if (failed)
                goto done;
        }
    }
    result = 0;
done:
#undef NEED_POS
    Py_XDECREF(own_pos);
    Py_DECREF(value);
    return result;
}

static int
on_scalar(void *builder, yaml_event_t *event)
{
    Builder *b = builder;
    long line = LINE(event->start_mark, b->offset), column = COLUMN(event->start_mark);
    PyObject *value = scalar_data(event);
    if (value == NULL)
        return -1;
    b->expanded += 1;
    PyObject *pos = NULL;
    if (event->data.scalar.anchor != NULL) {
        if ((pos = position(line, column)) == NULL) {
            Py_DECREF(value);
            return -1;
        }
        PyObject *record = Py_BuildValue("[OOii]", value, pos, -1, 1);
        int failed = record == NULL ||
                     define_anchor(b, event->data.scalar.anchor, record, line, column) < 0;
        Py_XDECREF(record);
        if (failed) {
            Py_DECREF(pos);
            Py_DECREF(value);
            return -1;
        }
    }
    int result = place(b, value, line, column, pos, 0, event);
    Py_XDECREF(pos);
    return result;
}

static int
on_start(void *builder, yaml_event_t *event, int is_map)
{
    Builder *b = builder;
    long line = LINE(event->start_mark, b->offset), column = COLUMN(event->start_mark);
    if (b->depth >= max_nesting) {
        set_problem(limit_type, nesting_message, line, column);
        b->over_limit = 1;
        return -1;
    }
    const unsigned char *name =
        is_map ? event->data.mapping_start.anchor : event->data.sequence_start.anchor;
    PyObject *pos = position(line, column);
    if (pos == NULL)
        return -1;
    PyObject *table;
    PyObject *value = new_collection(is_map, pos, &table);
    if (value == NULL) {
        Py_DECREF(pos);
        return -1;
    }
    b->expanded += 1;
    PyObject *record = NULL;
    if (name != NULL) {
        record = Py_BuildValue("[OOLO]", value, pos, b->expanded, Py_None);
        if (record == NULL || define_anchor(b, name, record, line, column) < 0) {
            Py_XDECREF(record);
            Py_DECREF(value);
            Py_DECREF(pos);
            return -1;
        }
    }
    Py_INCREF(value); /* kept for the entry below */
    int result = place(b, value, line, column, pos, 1, NULL);
    Py_DECREF(pos);
    if (result < 0) {
        Py_DECREF(value);
        Py_XDECREF(record);
        return -1;
    }
    /* open: its entries go in next (the nesting was checked above) */
    Open *entry = &b->open[b->depth++];
    memset(entry, 0, sizeof *entry);
    entry->node = value;       /* the reference kept above */
    entry->table = table;      /* borrowed: the node holds it */
    entry->is_map = is_map;
    entry->state = AWAIT_KEY;
    entry->anchor = record;    /* the reference made above, or NULL */
    return 0;
}

static int
on_alias(void *builder, yaml_event_t *event)
{
    Builder *b = builder;
    long line = LINE(event->start_mark, b->offset), column = COLUMN(event->start_mark);
    PyObject *name = PyUnicode_FromString((const char *)event->data.alias.anchor);
    if (name == NULL)
        return -1;
    PyObject *record = PyDict_GetItemWithError(b->anchors, name);
    if (record == NULL) {
        if (!PyErr_Occurred())
            problem("found undefined alias *%U", name, line, column);
        Py_DECREF(name);
        return -1;
    }
    PyObject *size = PyList_GET_ITEM(record, A_SIZE);
    if (size == Py_None) {
        problem("the alias *%U is inside its own anchor", name, line, column);
        Py_DECREF(name);
        return -1;
    }
    Py_DECREF(name);
    b->expanded += PyLong_AsLongLong(size);
    if (b->expanded > max_expanded) {
        PyObject *root_pos = b->root_pos;
        set_problem(limit_type, bomb_message, PyLong_AsLong(PyTuple_GET_ITEM(root_pos, 0)),
                    PyLong_AsLong(PyTuple_GET_ITEM(root_pos, 1)));
        b->over_limit = 1;
        return -1;
    }
    /* the node it names, where it was written, as the composer has it */
    PyObject *value = PyList_GET_ITEM(record, A_VALUE);
    PyObject *pos = PyList_GET_ITEM(record, A_POS);
    Py_INCREF(value);
    Py_INCREF(pos);
    int result = place(b, value, PyLong_AsLong(PyTuple_GET_ITEM(pos, 0)),
                       PyLong_AsLong(PyTuple_GET_ITEM(pos, 1)), pos, 0, NULL);
    Py_DECREF(pos);
    return result;
}

/* A closed mapping's spots (a dict of 4-tuples while it was built: the duplicate keys and
 * the merges look them up) as one flat tuple, each key followed by its four numbers
 * (yamltree.Spots): a third of the memory, for every mapping the run keeps. A mapping of
 * more keys keeps its dict: a key is found in the tuple by a scan, and a mapping of
 * thousands of keys read key by key was quadratic (20,000 keys: 14 s). */
#define COMPACT_MAX_KEYS 16

static int
compact_spots(PyObject *node)
{
    PyObject *table = PyObject_GetAttr(node, str_spots);
    if (table == NULL)
        return -1;
    if (!PyDict_CheckExact(table) || PyDict_GET_SIZE(table) > COMPACT_MAX_KEYS) {
        Py_DECREF(table);
        return 0;
    }
    PyObject *flat = PyTuple_New(PyDict_GET_SIZE(table) * 5);
    if (flat == NULL) {
        Py_DECREF(table);
        return -1;
    }
    Py_ssize_t next = 0, at = 0;
    PyObject *key, *spot;
    while (PyDict_Next(table, &next, &key, &spot)) {
        if (!PyTuple_CheckExact(spot) || PyTuple_GET_SIZE(spot) != 4) {
            Py_DECREF(flat); /* not as composed: left a dict */
            Py_DECREF(table);
            return 0;
        }
        Py_INCREF(key);
        PyTuple_SET_ITEM(flat, at++, key);
        for (Py_ssize_t i = 0; i < 4; i++) {
            PyObject *number = PyTuple_GET_ITEM(spot, i);
            Py_INCREF(number);
            PyTuple_SET_ITEM(flat, at++, number);
        }
    }
    Py_DECREF(table);
    int result = PyObject_SetAttr(node, str_spots, flat);
    Py_DECREF(flat);
    return result;
}

static int
on_end(void *builder, yaml_event_t *event)
{
    Builder *b = builder;
    (void)event; /* the check's trees keep where collections start only */
    Open *done = &b->open[--b->depth];
    int result = 0;
    if (done->merges != NULL) {
        PyObject *merged = PyObject_CallFunctionObjArgs(apply_merges, done->node, done->merges,
                                                        NULL);
        if (merged == NULL)
            result = -1;
        Py_XDECREF(merged);
    }
    if (result == 0 && done->is_map && compact_spots(done->node) < 0)
        result = -1;
    if (result == 0 && done->anchor != NULL) {
        long long start = PyLong_AsLongLong(PyList_GET_ITEM(done->anchor, A_START));
        PyObject *size = PyLong_FromLongLong(b->expanded - start + 1);
        if (size == NULL || PyList_SetItem(done->anchor, A_SIZE, size) < 0)
            result = -1;
    }
    Py_XDECREF(done->node);
    Py_XDECREF(done->key);
    Py_XDECREF(done->merges);
    Py_XDECREF(done->anchor);
    memset(done, 0, sizeof *done);
    return result;
}

int
build_document(yaml_parser_t *parser, const Handlers *on, void *builder, int *parser_failed)
{
    yaml_event_t event;
    for (;;) {
        if (!yaml_parser_parse(parser, &event)) {
            if (parser_failed != NULL)
                *parser_failed = 1;
            raise_parser_error(parser);
            return -1;
        }
        int result = 0;
        switch (event.type) {
        case YAML_SCALAR_EVENT:
            result = on->scalar(builder, &event);
            break;
        case YAML_MAPPING_START_EVENT:
            result = on->start(builder, &event, 1);
            break;
        case YAML_SEQUENCE_START_EVENT:
            result = on->start(builder, &event, 0);
            break;
        case YAML_ALIAS_EVENT:
            result = on->alias(builder, &event);
            break;
        case YAML_MAPPING_END_EVENT:
        case YAML_SEQUENCE_END_EVENT:
            result = on->end(builder, &event);
            break;
        case YAML_DOCUMENT_END_EVENT:
            yaml_event_delete(&event);
            return 0;
        default:
            break;
        }
        yaml_event_delete(&event);
        if (result < 0)
            return -1;
    }
}

static const Handlers TREE_HANDLERS = {on_scalar, on_start, on_alias, on_end};

/* After a problem in a document: a syntax error later in the same document is the truer
 * report (a template's `{{ }}` first reads as a flow-mapping key), so look for one. */
static void
prefer_a_later_syntax_error(yaml_parser_t *parser)
{
    yaml_event_t event;
    for (;;) {
        if (!yaml_parser_parse(parser, &event)) {
            PyObject *type, *value, *traceback;
            PyErr_Fetch(&type, &value, &traceback);
            raise_parser_error(parser);
            if (PyErr_Occurred()) {
                Py_XDECREF(type);
                Py_XDECREF(value);
                Py_XDECREF(traceback);
            }
            else
                PyErr_Restore(type, value, traceback);
            return;
        }
        int end = event.type == YAML_DOCUMENT_END_EVENT || event.type == YAML_STREAM_END_EVENT;
        yaml_event_delete(&event);
        if (end)
            return;
    }
}

int
each_document(PyObject *text, size_t open_size, DocumentBuilder document, void *state)
{
    yaml_parser_t parser;
    PyObject *encoded = PyUnicode_AsUTF8String(text);
    if (encoded == NULL)
        return -1;
    if (!yaml_parser_initialize(&parser)) {
        Py_DECREF(encoded);
        PyErr_NoMemory();
        return -1;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)PyBytes_AS_STRING(encoded),
                                 (size_t)PyBytes_GET_SIZE(encoded));
    void *open = PyMem_Calloc((size_t)max_nesting + 1, open_size);
    int result = open == NULL ? (PyErr_NoMemory(), -1) : 0;
    while (result == 0) {
        yaml_event_t event;
        if (!yaml_parser_parse(&parser, &event)) {
            raise_parser_error(&parser);
            result = -1;
            break;
        }
        yaml_event_type_t type = event.type;
        yaml_mark_t start = event.start_mark;
        yaml_event_delete(&event);
        if (type == YAML_STREAM_END_EVENT)
            break;
        if (type == YAML_DOCUMENT_START_EVENT)
            result = document(&parser, start, open, state);
    }
    PyMem_Free(open);
    yaml_parser_delete(&parser);
    Py_DECREF(encoded);
    return result;
}

typedef struct {
    PyObject *documents; /* [(data, pos)] */
    long offset;
} Trees;

/* One document's tree, after its start, appended with where it starts. */
static int
tree_document(yaml_parser_t *parser, yaml_mark_t start, void *open, void *state)
{
    Trees *trees = state;
    long offset = trees->offset;
    Builder b = {offset, open, 0, PyDict_New(), 0, Py_None, NULL, 0, 0};
    Py_INCREF(Py_None);
    b.root_pos = position(LINE(start, offset), COLUMN(start));
    int built = b.anchors != NULL && b.root_pos != NULL
                    ? build_document(parser, &TREE_HANDLERS, &b, &b.parser_failed)
                    : -1;
    close_all(&b);
    if (built == 0) {
        PyObject *pair = PyTuple_Pack(2, b.root, b.root_pos);
        built = pair != NULL && PyList_Append(trees->documents, pair) == 0 ? 0 : -1;
        Py_XDECREF(pair);
    }
    else if (!b.parser_failed && !b.over_limit && PyErr_ExceptionMatches(problem_type))
        prefer_a_later_syntax_error(parser);
    Py_XDECREF(b.anchors);
    Py_XDECREF(b.root);
    Py_XDECREF(b.root_pos);
    return built;
}

static PyObject *
documents(PyObject *module, PyObject *args)
{
    Trees trees;
    PyObject *text;
    if (!PyArg_ParseTuple(args, "Ul", &text, &trees.offset))
        return NULL;
    if (ymap_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "k8slb: _yamltree.configure() was not called");
        return NULL;
    }
    if ((trees.documents = PyList_New(0)) == NULL)
        return NULL;
    if (each_document(text, sizeof(Open), tree_document, &trees) < 0)
        Py_CLEAR(trees.documents);
    return trees.documents;
}

static PyObject *
configure(PyObject *module, PyObject *args)
{
    PyObject *typed;
    PyObject *objects[11];
    if (!PyArg_ParseTuple(args, "OOOOOOOOOUpOOlL", &objects[0], &objects[1], &objects[2],
                          &objects[3], &objects[4], &objects[5], &objects[6], &objects[7],
                          &objects[8], &typed, &any_first, &objects[9], &objects[10],
                          &max_nesting, &max_expanded))
        return NULL;
    PyObject **slots[11] = {&ymap_type,     &yseq_type,    &problem_type, &limit_type,
                            &resolve_scalar, &is_merge_key, &key_text,     &apply_merges,
                            &libyaml_error, &nesting_message, &bomb_message};
    for (int i = 0; i < 11; i++) {
        Py_INCREF(objects[i]);
        Py_XSETREF(*slots[i], objects[i]);
    }
    Py_XSETREF(typed_plain, PyDict_New()); /* what resolved before may not any more */
    if (typed_plain == NULL)
        return NULL;
    memset(typed_first, 0, sizeof typed_first);
    Py_ssize_t count = PyUnicode_GET_LENGTH(typed);
    for (Py_ssize_t i = 0; i < count; i++) {
        Py_UCS4 character = PyUnicode_READ_CHAR(typed, i);
        if (character < 128)
            typed_first[character] = 1;
    }
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"configure", configure, METH_VARARGS,
     "configure(YMap, YSeq, YAMLProblem, LimitExceeded, resolve_scalar, is_merge_key, "
     "key_text, apply_merges, libyaml_error, typed_first, any_first, nesting_message, "
     "bomb_message, max_nesting, max_expanded)"},
    {"documents", documents, METH_VARARGS,
     "documents(text, line_offset) -> [(data, (line, column))]: every document of a YAML "
     "stream; raises YAMLProblem, or the parser's error as ruamel.yaml raises it"},
    {"configure_nodes", configure_nodes, METH_VARARGS,
     "configure_nodes(ScalarNode, SequenceNode, MappingNode, plain_tag, make_tag)"},
    {"nodes", nodes, METH_VARARGS,
     "nodes(text) -> [root node]: each document's root as ruamel.yaml's C composer makes it "
     "(native/yamlnodes.c); raises YAMLProblem, or the parser's error as ruamel.yaml raises "
     "it"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef definition = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_yamltree",
    .m_doc = "YAML text into k8slb's trees, and into the fixer's nodes, in C.",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC
PyInit__yamltree(void)
{
    str_pos = PyUnicode_InternFromString("pos");
    str_spots = PyUnicode_InternFromString("_spots");
    str_item_pos = PyUnicode_InternFromString("item_pos");
    empty_tuple = PyTuple_New(0);
    if (str_pos == NULL || str_spots == NULL || str_item_pos == NULL || empty_tuple == NULL ||
        init_nodes() < 0)
        return NULL;
    return PyModule_Create(&definition);
}
