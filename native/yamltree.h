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
extern char typed_first[128];    /* plain scalars starting with these may not be text */
extern int any_first;            /* the resolver may type a plain scalar whatever its start */
extern long max_nesting;
extern PyObject *nesting_message;
extern PyObject *empty_tuple;

void raise_parser_error(yaml_parser_t *parser);
void problem(const char *format, PyObject *argument, long line, long column);
PyObject *text_of(const unsigned char *bytes, size_t length);

/* yamlnodes.c */
PyObject *configure_nodes(PyObject *module, PyObject *args);
PyObject *nodes(PyObject *module, PyObject *args);
int init_nodes(void);

#endif
