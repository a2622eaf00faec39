/* Macros that let one inline function compile as C11 (CPU backend) and as
 * CUDA C (device kernels). Every physics function in kernels/ is declared
 * with THR_HD so that the two backends share ONE definition. */
#ifndef THRONG_HOSTDEVICE_H
#define THRONG_HOSTDEVICE_H

#if defined(__CUDACC__)
#define THR_HD __host__ __device__ __forceinline__
#define THR_ALIGN8 __align__(8)
#define THR_RESTRICT __restrict__
#else
#define THR_HD static inline
#define THR_ALIGN8 _Alignas(8)
#define THR_RESTRICT restrict
#endif

#endif
