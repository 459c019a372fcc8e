/* Datatypes that pick rows of int64 out of a 2-D array (row r, column c at element r * ld + c
 * of the array), as Global Arrays style runtimes build them: one layout, several type
 * constructors. Shared by the tests that move strided data with them. */
#ifndef OSPREY_TEST_ROW_TYPES_H
#define OSPREY_TEST_ROW_TYPES_H

#include "common.h"

/* The constructor that describes the rows. */
enum t_rows_kind {
  T_ROWS_VECTOR,            /* rows at r * ld */
  T_ROWS_SUBARRAY,          /* rows at r * ld + start[0] */
  T_ROWS_INDEXED,           /* rows anywhere, element displacements */
  T_ROWS_STRUCT,            /* rows anywhere, one member per row */
  T_ROWS_VECTOR_OF_VECTORS, /* two halves at r * ld, the second from start[rows / 2] */
};

/* Builds and commits a type of `rows` rows of `cols` int64 where row r starts at element
 * start[r]; the kind must fit the starts, as each kind's comment says. */
static inline MPI_Datatype t_row_type(enum t_rows_kind kind, int rows, int cols, int ld,
                                      const int* start) {
  MPI_Datatype t, inner;
  int* lens = (int*)malloc(sizeof(int) * (size_t)rows);
  MPI_Aint* bdispls = (MPI_Aint*)malloc(sizeof(MPI_Aint) * (size_t)rows);
  MPI_Datatype* types = (MPI_Datatype*)malloc(sizeof(MPI_Datatype) * (size_t)rows);
  for (int r = 0; r < rows; r++) {
    lens[r] = cols;
    bdispls[r] = (MPI_Aint)start[r] * 8;
    types[r] = MPI_INT64_T;
  }
  switch (kind) {
    case T_ROWS_VECTOR:
      MPI_OK(MPI_Type_vector(rows, cols, ld, MPI_INT64_T, &t));
      break;
    case T_ROWS_SUBARRAY: {
      const int sizes[2] = {rows, ld}, subs[2] = {rows, cols}, starts[2] = {0, start[0]};
      MPI_OK(MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT64_T, &t));
      break;
    }
    case T_ROWS_INDEXED:
      MPI_OK(MPI_Type_indexed(rows, lens, start, MPI_INT64_T, &t));
      break;
    case T_ROWS_STRUCT:
      MPI_OK(MPI_Type_create_struct(rows, lens, bdispls, types, &t));
      break;
    default:
      MPI_OK(MPI_Type_vector(rows / 2, cols, ld, MPI_INT64_T, &inner));
      MPI_OK(MPI_Type_create_hvector(2, 1, bdispls[rows / 2], inner, &t));
      MPI_OK(MPI_Type_free(&inner));
      break;
  }
  MPI_OK(MPI_Type_commit(&t));
  free(types);
  free(bdispls);
  free(lens);
  return t;
}

#endif
