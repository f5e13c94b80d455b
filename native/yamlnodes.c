/* k8slb.reading._yamltree.nodes: the fixer's nodes of a YAML text, from libyaml's parser
 * in C.
 *
 * The fixer edits YAML by splicing text where nodes start and end (fixing/yaml_edit.py).
 * It reads ruamel.yaml's node classes, whose marks carry character offsets, as ruamel's C
 * composer makes them; but that composer calls Python for every node (the resolver, the
 * node's `__init__` and its marks'): most of a YAML fix's time. Here the same nodes are
 * made in C, and Python is asked only for the tag of a plain scalar that may not be text,
 * once per distinct text. As in ruamel's composer, an alias is the anchored node itself.
 * Unlike it, the nesting is bounded (as the check's is) and an alias inside its own anchor
 * is refused, not made into a cycle: the check reports both as problems already. A test
 * compares these nodes with ruamel's on every fixture, the corpus and generated text.
 */

#include "yamltree.h"

#include <structmember.h>

/* What `configure_nodes` is given, once, by yamlcompose.py. */
static PyObject *scalar_class, *sequence_class, *mapping_class; /* ruamel.yaml's */
static PyObject *plain_tag; /* a plain scalar's text -> its tag's name */
static PyObject *make_tag;  /* a tag's name -> ruamel.yaml's Tag */

/* Tags by name, and plain scalars' tags by their text (the resolver's answer never
 * changes; a Tag is never changed by the fixer). Bounded: a file may be hostile. */
static PyObject *tags, *plain_tags;
#define TAGS_MAX_ENTRIES 10000
static PyObject *str_tag, *seq_tag, *map_tag; /* the default tags */

static PyTypeObject *mark_type;
static PyObject *scalar_styles[6]; /* by libyaml's yaml_scalar_style_t, as ruamel names them */

static PyStructSequence_Field mark_fields[] = {
    {"index", "characters before it"},
    {"line", "its line, from 0"},
    {"column", "its column, from 0"},
    {NULL, NULL}};
static PyStructSequence_Desc mark_description = {
    "k8slb.reading._yamltree.Mark", "Where a node starts or ends, as ruamel's marks say it.",
    mark_fields, 3};

#define LINE1(mark) ((long)(mark).line + 1)
#define COLUMN1(mark) ((long)(mark).column + 1)

static PyObject *
mark(yaml_mark_t where)
{
    PyObject *made = PyStructSequence_New(mark_type);
    if (made == NULL)
        return NULL;
    size_t values[3] = {where.index, where.line, where.column};
    for (int i = 0; i < 3; i++) {
        PyObject *number = PyLong_FromSize_t(values[i]);
        if (number == NULL) {
            Py_DECREF(made);
            return NULL;
        }
        PyStructSequence_SET_ITEM(made, i, number);
    }
    return made;
}

/* The Tag of a name (a new reference). */
static PyObject *
tag_named(PyObject *name)
{
    PyObject *tag = PyDict_GetItemWithError(tags, name);
    if (tag != NULL) {
        Py_INCREF(tag);
        return tag;
    }
    if (PyErr_Occurred())
        return NULL;
    tag = PyObject_CallOneArg(make_tag, name);
    if (tag != NULL && PyDict_GET_SIZE(tags) < TAGS_MAX_ENTRIES &&
        PyDict_SetItem(tags, name, tag) < 0)
        Py_CLEAR(tag);
    return tag;
}

/* A given tag, unless it is none or the non-specific `!`: then NULL, no error. */
static PyObject *
given_tag(const unsigned char *given)
{
    if (given == NULL || (given[0] == '!' && given[1] == '\0'))
        return NULL;
    PyObject *name = PyUnicode_FromString((const char *)given);
    if (name == NULL)
        return NULL;
    PyObject *tag = tag_named(name);
    Py_DECREF(name);
    return tag;
}

/* A scalar's tag as ruamel's resolver gives it: the given one, else a plain scalar's by
 * its text (text, where no type starts like it), else text. */
static PyObject *
scalar_tag(yaml_event_t *event, PyObject *text)
{
    PyObject *tag = given_tag(event->data.scalar.tag);
    if (tag != NULL || PyErr_Occurred())
        return tag;
    const unsigned char *value = event->data.scalar.value;
    size_t length = event->data.scalar.length;
    if (!event->data.scalar.plain_implicit || surely_text(value, length)) {
        Py_INCREF(str_tag);
        return str_tag;
    }
    tag = cached_plain(plain_tags, text, length);
    if (tag != NULL || PyErr_Occurred())
        return tag;
    PyObject *name = PyObject_CallOneArg(plain_tag, text);
    if (name == NULL)
        return NULL;
    tag = tag_named(name);
    Py_DECREF(name);
    if (tag != NULL && keep_plain(plain_tags, text, length, tag) < 0)
        Py_CLEAR(tag);
    return tag;
}

/* Where each class keeps each slot its `__init__` sets: found once, by its member
 * descriptor, and written directly (setting them as attributes was most of the time). */
enum { SCALAR, SEQUENCE, MAPPING };
enum { CTAG, VALUE, START_MARK, END_MARK, COMMENT, ANCHOR, STYLE, MERGE, SLOTS };
static PyObject *slot_names[SLOTS], *flow_style_name;
static Py_ssize_t slot_offsets[3][SLOTS]; /* 0: the class has no such slot */

static void
set_slot(PyObject *node, Py_ssize_t offset, PyObject *value)
{
    PyObject **slot = (PyObject **)((char *)node + offset);
    Py_INCREF(value);
    Py_XSETREF(*slot, value);
}

/* One of ruamel's node classes, made without its `__init__`, with the slots it sets
 * (`style` is a scalar's style, a collection's `flow_style`). */
static PyObject *
new_node(int kind, PyObject *tag, PyObject *value, PyObject *start, PyObject *end,
         PyObject *style)
{
    PyTypeObject *type = (PyTypeObject *)(kind == SCALAR     ? scalar_class
                                          : kind == SEQUENCE ? sequence_class
                                                             : mapping_class);
    PyObject *node = type->tp_new(type, empty_tuple, NULL);
    if (node == NULL)
        return NULL;
    PyObject *values[SLOTS] = {tag, value, start, end, Py_None, Py_None, style, Py_None};
    for (int slot = 0; slot < SLOTS; slot++) {
        if (slot_offsets[kind][slot] > 0)
            set_slot(node, slot_offsets[kind][slot], values[slot]);
    }
    return node;
}

/* The offset of a slot in a class (from its member descriptor), 0 where it has none;
 * -1 with an error where the slot is not a plain object slot. */
static Py_ssize_t
slot_offset(PyObject *class, PyObject *name)
{
    PyObject *descriptor = PyObject_GetAttr(class, name);
    if (descriptor == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError))
            return -1;
        PyErr_Clear();
        return 0;
    }
    Py_ssize_t offset = -1;
    if (Py_IS_TYPE(descriptor, &PyMemberDescr_Type) &&
        ((PyMemberDescrObject *)descriptor)->d_member->type == T_OBJECT_EX &&
        PyType_IsSubtype((PyTypeObject *)class, PyDescr_TYPE(descriptor)))
        offset = ((PyMemberDescrObject *)descriptor)->d_member->offset;
    else
        PyErr_Format(PyExc_TypeError, "%R.%U is not a slot", class, name);
    Py_DECREF(descriptor);
    return offset;
}

typedef struct {
    PyObject *node;  /* the open collection (strong) */
    PyObject *items; /* its value list (borrowed: the node holds it) */
    PyObject *key;   /* a mapping's key awaiting its value (strong), or NULL */
    int is_map;
} OpenNode;

typedef struct {
    OpenNode *open;
    int depth;
    PyObject *anchors; /* name -> node, for this document */
    PyObject *root;    /* strong, or NULL */
} NodeBuilder;

static void
close_nodes(NodeBuilder *b)
{
    for (int i = 0; i < b->depth; i++) {
        Py_XDECREF(b->open[i].node);
        Py_XDECREF(b->open[i].key);
    }
    b->depth = 0;
}

/* Put a node (a new reference, taken) in the open collection, or make it the root. */
static int
put(NodeBuilder *b, PyObject *node)
{
    if (b->depth == 0) {
        Py_XSETREF(b->root, node);
        return 0;
    }
    OpenNode *parent = &b->open[b->depth - 1];
    int result;
    if (!parent->is_map)
        result = PyList_Append(parent->items, node);
    else if (parent->key == NULL) {
        parent->key = node;
        return 0;
    }
    else {
        PyObject *pair = PyTuple_Pack(2, parent->key, node);
        Py_CLEAR(parent->key);
        result = pair == NULL ? -1 : PyList_Append(parent->items, pair);
        Py_XDECREF(pair);
    }
    Py_DECREF(node);
    return result;
}

static int
name_anchor(NodeBuilder *b, const unsigned char *name, PyObject *node, yaml_mark_t where)
{
    if (name == NULL)
        return 0;
    PyObject *key = PyUnicode_FromString((const char *)name);
    if (key == NULL)
        return -1;
    int known = PyDict_Contains(b->anchors, key);
    if (known > 0)
        problem("the anchor &%U is defined twice", key, LINE1(where), COLUMN1(where));
    int result = known == 0 ? PyDict_SetItem(b->anchors, key, node) : -1;
    Py_DECREF(key);
    return result;
}

static int
on_scalar_node(void *builder, yaml_event_t *event)
{
    NodeBuilder *b = builder;
    PyObject *text = text_of(event->data.scalar.value, event->data.scalar.length);
    if (text == NULL)
        return -1;
    PyObject *tag = scalar_tag(event, text);
    PyObject *start = mark(event->start_mark), *end = mark(event->end_mark);
    int style = (int)event->data.scalar.style;
    PyObject *node = NULL;
    if (tag != NULL && start != NULL && end != NULL)
        node = new_node(SCALAR, tag, text, start, end,
                        scalar_styles[style >= 0 && style < 6 ? style : 0]);
    Py_DECREF(text);
    Py_XDECREF(tag);
    Py_XDECREF(start);
    Py_XDECREF(end);
    if (node == NULL)
        return -1;
    if (name_anchor(b, event->data.scalar.anchor, node, event->start_mark) < 0) {
        Py_DECREF(node);
        return -1;
    }
    return put(b, node);
}

static int
on_collection_start(void *builder, yaml_event_t *event, int is_map)
{
    NodeBuilder *b = builder;
    if (b->depth >= max_nesting) {
        problem("%U", nesting_message, LINE1(event->start_mark), COLUMN1(event->start_mark));
        return -1;
    }
    const unsigned char *given =
        is_map ? event->data.mapping_start.tag : event->data.sequence_start.tag;
    PyObject *tag = given_tag(given);
    if (tag == NULL) {
        if (PyErr_Occurred())
            return -1;
        tag = is_map ? map_tag : seq_tag;
        Py_INCREF(tag);
    }
    int flow = is_map ? event->data.mapping_start.style == YAML_FLOW_MAPPING_STYLE
                      : event->data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE;
    int block = is_map ? event->data.mapping_start.style == YAML_BLOCK_MAPPING_STYLE
                       : event->data.sequence_start.style == YAML_BLOCK_SEQUENCE_STYLE;
    PyObject *flow_style = flow ? Py_True : block ? Py_False : Py_None;
    PyObject *items = PyList_New(0);
    PyObject *start = mark(event->start_mark);
    PyObject *node = NULL;
    if (items != NULL && start != NULL)
        node = new_node(is_map ? MAPPING : SEQUENCE, tag, items, start, Py_None, flow_style);
    Py_DECREF(tag);
    Py_XDECREF(start);
    if (node == NULL) {
        Py_XDECREF(items);
        return -1;
    }
    Py_DECREF(items); /* the node holds it */
    const unsigned char *name =
        is_map ? event->data.mapping_start.anchor : event->data.sequence_start.anchor;
    if (name_anchor(b, name, node, event->start_mark) < 0) {
        Py_DECREF(node);
        return -1;
    }
    Py_INCREF(node); /* one for the open entry, one for its place (which put takes) */
    if (put(b, node) < 0) {
        Py_DECREF(node);
        return -1;
    }
    OpenNode *entry = &b->open[b->depth++];
    entry->node = node;
    entry->items = items;
    entry->key = NULL;
    entry->is_map = is_map;
    return 0;
}

static int
on_alias_node(void *builder, yaml_event_t *event)
{
    NodeBuilder *b = builder;
    long line = LINE1(event->start_mark), column = COLUMN1(event->start_mark);
    PyObject *name = PyUnicode_FromString((const char *)event->data.alias.anchor);
    if (name == NULL)
        return -1;
    PyObject *node = PyDict_GetItemWithError(b->anchors, name);
    int result = -1;
    if (node == NULL) {
        if (!PyErr_Occurred())
            problem("found undefined alias *%U", name, line, column);
        goto done;
    }
    for (int i = 0; i < b->depth; i++) {
        if (b->open[i].node == node) {
            problem("the alias *%U is inside its own anchor", name, line, column);
            goto done;
        }
    }
    Py_INCREF(node);
    result = put(b, node);
done:
    Py_DECREF(name);
    return result;
}

static int
on_collection_end(void *builder, yaml_event_t *event)
{
    NodeBuilder *b = builder;
    OpenNode *done = &b->open[--b->depth];
    PyObject *end = mark(event->end_mark);
    int result = 0;
    if (end == NULL)
        result = -1;
    else {
        set_slot(done->node, slot_offsets[done->is_map ? MAPPING : SEQUENCE][END_MARK], end);
        Py_DECREF(end);
    }
    Py_DECREF(done->node);
    Py_XDECREF(done->key);
    done->node = done->key = NULL;
    return result;
}

static const Handlers NODE_HANDLERS = {on_scalar_node, on_collection_start, on_alias_node,
                                        on_collection_end};

/* One document's root node, after its start, appended to the roots. */
static int
node_document(yaml_parser_t *parser, yaml_mark_t start, void *open, void *roots)
{
    (void)start; /* each node takes its marks from its own events */
    NodeBuilder b = {open, 0, PyDict_New(), NULL};
    int built = b.anchors != NULL ? build_document(parser, &NODE_HANDLERS, &b, NULL) : -1;
    close_nodes(&b);
    if (built == 0 && b.root != NULL)
        built = PyList_Append(roots, b.root);
    Py_XDECREF(b.anchors);
    Py_XDECREF(b.root);
    return built;
}

PyObject *
nodes(PyObject *module, PyObject *args)
{
    PyObject *text;
    if (!PyArg_ParseTuple(args, "U", &text))
        return NULL;
    if (scalar_class == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "k8slb: _yamltree.configure_nodes() was not called");
        return NULL;
    }
    PyObject *roots = PyList_New(0);
    if (roots != NULL && each_document(text, sizeof(OpenNode), node_document, roots) < 0)
        Py_CLEAR(roots);
    return roots;
}

PyObject *
configure_nodes(PyObject *module, PyObject *args)
{
    PyObject *objects[5];
    if (!PyArg_ParseTuple(args, "OOOOO", &objects[0], &objects[1], &objects[2], &objects[3],
                          &objects[4]))
        return NULL;
    PyObject **slots[5] = {&scalar_class, &sequence_class, &mapping_class, &plain_tag, &make_tag};
    for (int i = 0; i < 5; i++) {
        if (i < 3 && !PyType_Check(objects[i])) {
            PyErr_SetString(PyExc_TypeError, "the node classes must be classes");
            return NULL;
        }
        Py_INCREF(objects[i]);
        Py_XSETREF(*slots[i], objects[i]);
    }
    for (int kind = SCALAR; kind <= MAPPING; kind++) {
        for (int slot = 0; slot < SLOTS; slot++) {
            /* a scalar's style is `style`; a collection's, `flow_style` */
            PyObject *name = slot == STYLE && kind != SCALAR ? flow_style_name : slot_names[slot];
            if ((slot_offsets[kind][slot] = slot_offset(objects[kind], name)) < 0)
                return NULL;
        }
        for (int slot = 0; slot < SLOTS; slot++) {
            if (slot_offsets[kind][slot] == 0 && (slot != MERGE || kind == MAPPING)) {
                PyErr_Format(PyExc_TypeError, "%R has no slot %U", objects[kind],
                             slot_names[slot]);
                return NULL;
            }
        }
    }
    Py_XSETREF(tags, PyDict_New());
    Py_XSETREF(plain_tags, PyDict_New());
    if (tags == NULL || plain_tags == NULL)
        return NULL;
    const char *names[3] = {"tag:yaml.org,2002:str", "tag:yaml.org,2002:seq",
                            "tag:yaml.org,2002:map"};
    PyObject **defaults[3] = {&str_tag, &seq_tag, &map_tag};
    for (int i = 0; i < 3; i++) {
        PyObject *name = PyUnicode_FromString(names[i]);
        if (name == NULL)
            return NULL;
        PyObject *tag = tag_named(name);
        Py_DECREF(name);
        if (tag == NULL)
            return NULL;
        Py_XSETREF(*defaults[i], tag);
    }
    Py_RETURN_NONE;
}

int
init_nodes(void)
{
    mark_type = PyStructSequence_NewType(&mark_description);
    if (mark_type == NULL)
        return -1;
    const char *names[SLOTS] = {"ctag",    "value",  "start_mark", "end_mark",
                                "comment", "anchor", "style",      "merge"};
    for (int slot = 0; slot < SLOTS; slot++) {
        if ((slot_names[slot] = PyUnicode_InternFromString(names[slot])) == NULL)
            return -1;
    }
    if ((flow_style_name = PyUnicode_InternFromString("flow_style")) == NULL)
        return -1;
    /* YAML_ANY, PLAIN, SINGLE_QUOTED, DOUBLE_QUOTED, LITERAL, FOLDED */
    const char *styles[6] = {NULL, "", "'", "\"", "|", ">"};
    for (int i = 0; i < 6; i++) {
        if (styles[i] == NULL) {
            Py_INCREF(Py_None);
            scalar_styles[i] = Py_None;
        }
        else if ((scalar_styles[i] = PyUnicode_InternFromString(styles[i])) == NULL)
            return -1;
    }
    return 0;
}
