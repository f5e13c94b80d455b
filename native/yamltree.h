/* What native/yamltree.c (the check's trees) shares with native/yamlnodes.c (the fixer's
 * nodes): libyaml's parser, how its errors are raised, how text and problems are made, and
 * which plain scalars may not be text. One extension module holds both. */

#ifndef K8SLB_YAMLTREE_H
#define K8SLB_YAMLTREE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "yaml.h"

/* Set by configure() (yamltree.c). */
extern PyObject *problem_type;   /* YAMLProblem */
extern long max_nesting;
extern PyObject *nesting_message;
extern PyObject *empty_tuple;

/* libyaml's error as ruamel.yaml raises it; a YAMLProblem at a 1-based line and column
 * (`format` with one %U or %R of `argument`, or none); a text's UTF-8 bytes as a str. */
void raise_parser_error(yaml_parser_t *parser);
void problem(const char *format, PyObject *argument, long line, long column);
PyObject *text_of(const unsigned char *bytes, size_t length);

/* Whether an untagged plain scalar is surely text: no type the resolver knows starts like
 * it. What a bounded cache of plain scalars holds for a text (a new reference; NULL when it
 * holds none, or with the error set); keeping a value there (0, or -1 with the error set;
 * nothing is kept once the cache is full, nor for a long text). */
int surely_text(const unsigned char *value, size_t length);
PyObject *cached_plain(PyObject *cache, PyObject *text, size_t length);
int keep_plain(PyObject *cache, PyObject *text, size_t length, PyObject *value);

/* What a builder does with each event of a document: 0, or -1 with the error set. */
typedef struct {
    int (*scalar)(void *builder, yaml_event_t *event);
    int (*start)(void *builder, yaml_event_t *event, int is_map);
    int (*alias)(void *builder, yaml_event_t *event);
    int (*end)(void *builder, yaml_event_t *event); /* a mapping's or a sequence's */
} Handlers;

/* What a builder does with a document, after its start (where it starts; `open`, an array
 * of max_nesting + 1 open collections of its own kind, zeroed): 0, or -1 with the error set. */
typedef int (*DocumentBuilder)(yaml_parser_t *parser, yaml_mark_t start, void *open,
                               void *state);
/* Every document of a text's UTF-8 bytes to `document`, whose collections take `open_size`
 * bytes each: 0, or -1 with the error set at the first error. */
int each_document(PyObject *text, size_t open_size, DocumentBuilder document, void *state);
/* One document's events, after its start, handed to `on` until its end: 0, or -1 with
 * the error set (*parser_failed, unless NULL, when it is libyaml's: no event is left to
 * read). */
int build_document(yaml_parser_t *parser, const Handlers *on, void *builder, int *parser_failed);

/* yamlnodes.c */
PyObject *configure_nodes(PyObject *module, PyObject *args);
PyObject *nodes(PyObject *module, PyObject *args);
int init_nodes(void);

#endif
