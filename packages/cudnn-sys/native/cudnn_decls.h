// Our own declarations of the part of the cuDNN 9 C API that baracuda calls.
//
// NVIDIA's headers are never needed to build the addon: we declare the types, prototypes and
// constants ourselves, and native/abi_check.cc (built with -DBARACUDA_CUDNN_ABI_CHECK=ON, or by
// scripts/abi-check.sh) static_asserts every one of them against the real <cudnn.h>.
//
// How the proof works: the function list below is written once, as an X-macro, in terms of
// unqualified C type names. In the addon those names are our own definitions (namespace `own`);
// in the ABI check they are the header's own typedefs, so `decltype(&::cudnnCreate)` can be
// compared with `PFN_cudnnCreate` by std::is_same. The check then proves that each of our own
// types has the size (and, for structs, the layout) of the header's type, and that each constant
// has the header's value.
#pragma once

#include <cstddef>
#include <cstdint>

// Opaque struct tags, at global scope and spelled as <cudnn.h> spells them, so that our handle
// and descriptor pointer types are the header's types exactly.
struct cudnnContext;
struct cudnnTensorStruct;
struct cudnnFilterStruct;
struct cudnnConvolutionStruct;
struct cudnnActivationStruct;
struct CUstream_st;

namespace baracuda::cudnn {

// Our own definitions of the C enum and struct types. C enums here are 32-bit integers; the
// values live in the constant table below rather than in these types.
namespace own {
enum cudnnStatus_t : int {};
enum cudnnDataType_t : int {};
enum cudnnTensorFormat_t : int {};
enum cudnnConvolutionMode_t : int {};
enum cudnnMathType_t : int {};
enum cudnnReorderType_t : int {};
enum cudnnDeterminism_t : int {};
enum cudnnConvolutionFwdAlgo_t : int {};
enum cudnnConvolutionBwdDataAlgo_t : int {};
enum cudnnConvolutionBwdFilterAlgo_t : int {};
enum cudnnActivationMode_t : int {};
enum cudnnNanPropagation_t : int {};
enum libraryPropertyType : int {};
enum cudnnBackendDescriptorType_t : int {};
enum cudnnBackendAttributeName_t : int {};
enum cudnnBackendAttributeType_t : int {};

// The three perf-result structs share one layout.
struct cudnnConvolutionFwdAlgoPerf_t {
  cudnnConvolutionFwdAlgo_t algo;
  cudnnStatus_t status;
  float time;
  size_t memory;
  cudnnDeterminism_t determinism;
  cudnnMathType_t mathType;
  int reserved[3];
};
struct cudnnConvolutionBwdDataAlgoPerf_t {
  cudnnConvolutionBwdDataAlgo_t algo;
  cudnnStatus_t status;
  float time;
  size_t memory;
  cudnnDeterminism_t determinism;
  cudnnMathType_t mathType;
  int reserved[3];
};
struct cudnnConvolutionBwdFilterAlgoPerf_t {
  cudnnConvolutionBwdFilterAlgo_t algo;
  cudnnStatus_t status;
  float time;
  size_t memory;
  cudnnDeterminism_t determinism;
  cudnnMathType_t mathType;
  int reserved[3];
};
}  // namespace own

#define BARACUDA_CUDNN_OWN_TYPES(X) \
  X(cudnnStatus_t)                  \
  X(cudnnDataType_t)                \
  X(cudnnTensorFormat_t)            \
  X(cudnnConvolutionMode_t)         \
  X(cudnnMathType_t)                \
  X(cudnnReorderType_t)             \
  X(cudnnDeterminism_t)             \
  X(cudnnConvolutionFwdAlgo_t)      \
  X(cudnnConvolutionBwdDataAlgo_t)  \
  X(cudnnConvolutionBwdFilterAlgo_t) \
  X(cudnnActivationMode_t)          \
  X(cudnnNanPropagation_t)          \
  X(libraryPropertyType)            \
  X(cudnnBackendDescriptorType_t)   \
  X(cudnnBackendAttributeName_t)    \
  X(cudnnBackendAttributeType_t)    \
  X(cudnnConvolutionFwdAlgoPerf_t)  \
  X(cudnnConvolutionBwdDataAlgoPerf_t) \
  X(cudnnConvolutionBwdFilterAlgoPerf_t)

#if defined(BARACUDA_CUDNN_TYPES_FROM_HEADER)
// ABI check: <cudnn.h> was included first; take its types.
#define BARACUDA_CUDNN_USE(T) using ::T;
#else
#define BARACUDA_CUDNN_USE(T) using own::T;
#endif
BARACUDA_CUDNN_OWN_TYPES(BARACUDA_CUDNN_USE)
#undef BARACUDA_CUDNN_USE

using cudnnHandle_t = ::cudnnContext *;
using cudnnTensorDescriptor_t = ::cudnnTensorStruct *;
using cudnnFilterDescriptor_t = ::cudnnFilterStruct *;
using cudnnConvolutionDescriptor_t = ::cudnnConvolutionStruct *;
using cudnnActivationDescriptor_t = ::cudnnActivationStruct *;
using cudnnBackendDescriptor_t = void *;
using cudaStream_t = ::CUstream_st *;

// Every function we call: X(name, return type, (parameters)), in C spelling.
// Docs: https://docs.nvidia.com/deeplearning/cudnn/latest/api/overview.html
#define BARACUDA_CUDNN_FUNCTIONS(X)                                                               \
  /* cudnn_graph.h: version, errors, handle */                                                   \
  X(cudnnGetVersion, size_t, (void))                                                              \
  X(cudnnGetMaxDeviceVersion, size_t, (void))                                                     \
  X(cudnnGetCudartVersion, size_t, (void))                                                        \
  X(cudnnGetErrorString, const char *, (cudnnStatus_t status))                                    \
  X(cudnnGetLastErrorString, void, (char *message, size_t max_size))                              \
  X(cudnnGetProperty, cudnnStatus_t, (libraryPropertyType type, int *value))                      \
  X(cudnnCreate, cudnnStatus_t, (cudnnHandle_t * handle))                                         \
  X(cudnnDestroy, cudnnStatus_t, (cudnnHandle_t handle))                                          \
  X(cudnnSetStream, cudnnStatus_t, (cudnnHandle_t handle, cudaStream_t streamId))                 \
  X(cudnnGetStream, cudnnStatus_t, (cudnnHandle_t handle, cudaStream_t * streamId))               \
  /* cudnn_graph.h: backend (graph) API */                                                        \
  X(cudnnBackendCreateDescriptor, cudnnStatus_t,                                                  \
    (cudnnBackendDescriptorType_t descriptorType, cudnnBackendDescriptor_t * descriptor))         \
  X(cudnnBackendDestroyDescriptor, cudnnStatus_t, (cudnnBackendDescriptor_t descriptor))          \
  X(cudnnBackendFinalize, cudnnStatus_t, (cudnnBackendDescriptor_t descriptor))                   \
  X(cudnnBackendSetAttribute, cudnnStatus_t,                                                      \
    (cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t attributeName,              \
     cudnnBackendAttributeType_t attributeType, int64_t elementCount,                             \
     const void *arrayOfElements))                                                                \
  X(cudnnBackendGetAttribute, cudnnStatus_t,                                                      \
    (cudnnBackendDescriptor_t const descriptor, cudnnBackendAttributeName_t attributeName,        \
     cudnnBackendAttributeType_t attributeType, int64_t requestedElementCount,                    \
     int64_t *elementCount, void *arrayOfElements))                                               \
  X(cudnnBackendExecute, cudnnStatus_t,                                                           \
    (cudnnHandle_t handle, cudnnBackendDescriptor_t executionPlan,                                \
     cudnnBackendDescriptor_t variantPack))                                                       \
  /* cudnn_ops.h: tensor, filter and activation descriptors */                                    \
  X(cudnnCreateTensorDescriptor, cudnnStatus_t, (cudnnTensorDescriptor_t * tensorDesc))           \
  X(cudnnSetTensorNdDescriptor, cudnnStatus_t,                                                    \
    (cudnnTensorDescriptor_t tensorDesc, cudnnDataType_t dataType, int nbDims, const int dimA[],  \
     const int strideA[]))                                                                        \
  X(cudnnSetTensorNdDescriptorEx, cudnnStatus_t,                                                  \
    (cudnnTensorDescriptor_t tensorDesc, cudnnTensorFormat_t format, cudnnDataType_t dataType,    \
     int nbDims, const int dimA[]))                                                               \
  X(cudnnGetTensorNdDescriptor, cudnnStatus_t,                                                    \
    (const cudnnTensorDescriptor_t tensorDesc, int nbDimsRequested, cudnnDataType_t *dataType,    \
     int *nbDims, int dimA[], int strideA[]))                                                     \
  X(cudnnGetTensorSizeInBytes, cudnnStatus_t,                                                     \
    (const cudnnTensorDescriptor_t tensorDesc, size_t *size))                                     \
  X(cudnnDestroyTensorDescriptor, cudnnStatus_t, (cudnnTensorDescriptor_t tensorDesc))            \
  X(cudnnTransformTensor, cudnnStatus_t,                                                          \
    (cudnnHandle_t handle, const void *alpha, const cudnnTensorDescriptor_t xDesc, const void *x, \
     const void *beta, const cudnnTensorDescriptor_t yDesc, void *y))                             \
  X(cudnnCreateFilterDescriptor, cudnnStatus_t, (cudnnFilterDescriptor_t * filterDesc))           \
  X(cudnnSetFilterNdDescriptor, cudnnStatus_t,                                                    \
    (cudnnFilterDescriptor_t filterDesc, cudnnDataType_t dataType, cudnnTensorFormat_t format,    \
     int nbDims, const int filterDimA[]))                                                         \
  X(cudnnGetFilterNdDescriptor, cudnnStatus_t,                                                    \
    (const cudnnFilterDescriptor_t filterDesc, int nbDimsRequested, cudnnDataType_t *dataType,    \
     cudnnTensorFormat_t *format, int *nbDims, int filterDimA[]))                                 \
  X(cudnnDestroyFilterDescriptor, cudnnStatus_t, (cudnnFilterDescriptor_t filterDesc))            \
  X(cudnnCreateActivationDescriptor, cudnnStatus_t,                                               \
    (cudnnActivationDescriptor_t * activationDesc))                                               \
  X(cudnnSetActivationDescriptor, cudnnStatus_t,                                                  \
    (cudnnActivationDescriptor_t activationDesc, cudnnActivationMode_t mode,                      \
     cudnnNanPropagation_t reluNanOpt, double coef))                                              \
  X(cudnnGetActivationDescriptor, cudnnStatus_t,                                                  \
    (const cudnnActivationDescriptor_t activationDesc, cudnnActivationMode_t *mode,               \
     cudnnNanPropagation_t *reluNanOpt, double *coef))                                            \
  X(cudnnDestroyActivationDescriptor, cudnnStatus_t,                                              \
    (cudnnActivationDescriptor_t activationDesc))                                                 \
  /* cudnn_cnn.h: convolution descriptor */                                                       \
  X(cudnnCreateConvolutionDescriptor, cudnnStatus_t, (cudnnConvolutionDescriptor_t * convDesc))   \
  X(cudnnDestroyConvolutionDescriptor, cudnnStatus_t, (cudnnConvolutionDescriptor_t convDesc))    \
  X(cudnnSetConvolutionMathType, cudnnStatus_t,                                                   \
    (cudnnConvolutionDescriptor_t convDesc, cudnnMathType_t mathType))                            \
  X(cudnnGetConvolutionMathType, cudnnStatus_t,                                                   \
    (cudnnConvolutionDescriptor_t convDesc, cudnnMathType_t * mathType))                          \
  X(cudnnSetConvolutionGroupCount, cudnnStatus_t,                                                 \
    (cudnnConvolutionDescriptor_t convDesc, int groupCount))                                      \
  X(cudnnGetConvolutionGroupCount, cudnnStatus_t,                                                 \
    (cudnnConvolutionDescriptor_t convDesc, int *groupCount))                                     \
  X(cudnnSetConvolutionReorderType, cudnnStatus_t,                                                \
    (cudnnConvolutionDescriptor_t convDesc, cudnnReorderType_t reorderType))                      \
  X(cudnnGetConvolutionReorderType, cudnnStatus_t,                                                \
    (cudnnConvolutionDescriptor_t convDesc, cudnnReorderType_t * reorderType))                    \
  X(cudnnSetConvolutionNdDescriptor, cudnnStatus_t,                                               \
    (cudnnConvolutionDescriptor_t convDesc, int arrayLength, const int padA[],                    \
     const int filterStrideA[], const int dilationA[], cudnnConvolutionMode_t mode,               \
     cudnnDataType_t computeType))                                                                \
  X(cudnnGetConvolutionNdDescriptor, cudnnStatus_t,                                               \
    (const cudnnConvolutionDescriptor_t convDesc, int arrayLengthRequested, int *arrayLength,     \
     int padA[], int strideA[], int dilationA[], cudnnConvolutionMode_t *mode,                    \
     cudnnDataType_t *computeType))                                                               \
  X(cudnnGetConvolutionNdForwardOutputDim, cudnnStatus_t,                                         \
    (const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t inputTensorDesc,  \
     const cudnnFilterDescriptor_t filterDesc, int nbDims, int tensorOuputDimA[]))                \
  /* cudnn_cnn.h: forward */                                                                      \
  X(cudnnGetConvolutionForwardAlgorithmMaxCount, cudnnStatus_t,                                   \
    (cudnnHandle_t handle, int *count))                                                           \
  X(cudnnGetConvolutionForwardAlgorithm_v7, cudnnStatus_t,                                        \
    (cudnnHandle_t handle, const cudnnTensorDescriptor_t srcDesc,                                 \
     const cudnnFilterDescriptor_t filterDesc, const cudnnConvolutionDescriptor_t convDesc,       \
     const cudnnTensorDescriptor_t destDesc, const int requestedAlgoCount,                        \
     int *returnedAlgoCount, cudnnConvolutionFwdAlgoPerf_t *perfResults))                         \
  X(cudnnFindConvolutionForwardAlgorithmEx, cudnnStatus_t,                                        \
    (cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const void *x,                    \
     const cudnnFilterDescriptor_t wDesc, const void *w,                                          \
     const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t yDesc, void *y,   \
     const int requestedAlgoCount, int *returnedAlgoCount,                                        \
     cudnnConvolutionFwdAlgoPerf_t *perfResults, void *workSpace, size_t workSpaceSizeInBytes))   \
  X(cudnnGetConvolutionForwardWorkspaceSize, cudnnStatus_t,                                       \
    (cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,                                   \
     const cudnnFilterDescriptor_t wDesc, const cudnnConvolutionDescriptor_t convDesc,            \
     const cudnnTensorDescriptor_t yDesc, cudnnConvolutionFwdAlgo_t algo, size_t *sizeInBytes))   \
  X(cudnnConvolutionForward, cudnnStatus_t,                                                       \
    (cudnnHandle_t handle, const void *alpha, const cudnnTensorDescriptor_t xDesc, const void *x, \
     const cudnnFilterDescriptor_t wDesc, const void *w,                                          \
     const cudnnConvolutionDescriptor_t convDesc, cudnnConvolutionFwdAlgo_t algo,                 \
     void *workSpace, size_t workSpaceSizeInBytes, const void *beta,                              \
     const cudnnTensorDescriptor_t yDesc, void *y))                                               \
  X(cudnnConvolutionBiasActivationForward, cudnnStatus_t,                                         \
    (cudnnHandle_t handle, const void *alpha1, const cudnnTensorDescriptor_t xDesc,               \
     const void *x, const cudnnFilterDescriptor_t wDesc, const void *w,                           \
     const cudnnConvolutionDescriptor_t convDesc, cudnnConvolutionFwdAlgo_t algo,                 \
     void *workSpace, size_t workSpaceSizeInBytes, const void *alpha2,                            \
     const cudnnTensorDescriptor_t zDesc, const void *z, const cudnnTensorDescriptor_t biasDesc,  \
     const void *bias, const cudnnActivationDescriptor_t activationDesc,                          \
     const cudnnTensorDescriptor_t yDesc, void *y))                                               \
  /* cudnn_cnn.h: backward data */                                                                \
  X(cudnnGetConvolutionBackwardDataAlgorithmMaxCount, cudnnStatus_t,                              \
    (cudnnHandle_t handle, int *count))                                                           \
  X(cudnnGetConvolutionBackwardDataAlgorithm_v7, cudnnStatus_t,                                   \
    (cudnnHandle_t handle, const cudnnFilterDescriptor_t filterDesc,                              \
     const cudnnTensorDescriptor_t diffDesc, const cudnnConvolutionDescriptor_t convDesc,         \
     const cudnnTensorDescriptor_t gradDesc, const int requestedAlgoCount,                        \
     int *returnedAlgoCount, cudnnConvolutionBwdDataAlgoPerf_t *perfResults))                     \
  X(cudnnFindConvolutionBackwardDataAlgorithmEx, cudnnStatus_t,                                   \
    (cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc, const void *w,                    \
     const cudnnTensorDescriptor_t dyDesc, const void *dy,                                        \
     const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t dxDesc,           \
     void *dx, const int requestedAlgoCount, int *returnedAlgoCount,                              \
     cudnnConvolutionBwdDataAlgoPerf_t *perfResults, void *workSpace,                             \
     size_t workSpaceSizeInBytes))                                                                \
  X(cudnnGetConvolutionBackwardDataWorkspaceSize, cudnnStatus_t,                                  \
    (cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc,                                   \
     const cudnnTensorDescriptor_t dyDesc, const cudnnConvolutionDescriptor_t convDesc,           \
     const cudnnTensorDescriptor_t dxDesc, cudnnConvolutionBwdDataAlgo_t algo,                    \
     size_t *sizeInBytes))                                                                        \
  X(cudnnConvolutionBackwardData, cudnnStatus_t,                                                  \
    (cudnnHandle_t handle, const void *alpha, const cudnnFilterDescriptor_t wDesc, const void *w, \
     const cudnnTensorDescriptor_t dyDesc, const void *dy,                                        \
     const cudnnConvolutionDescriptor_t convDesc, cudnnConvolutionBwdDataAlgo_t algo,             \
     void *workSpace, size_t workSpaceSizeInBytes, const void *beta,                              \
     const cudnnTensorDescriptor_t dxDesc, void *dx))                                             \
  /* cudnn_cnn.h: backward filter */                                                              \
  X(cudnnGetConvolutionBackwardFilterAlgorithmMaxCount, cudnnStatus_t,                            \
    (cudnnHandle_t handle, int *count))                                                           \
  X(cudnnGetConvolutionBackwardFilterAlgorithm_v7, cudnnStatus_t,                                 \
    (cudnnHandle_t handle, const cudnnTensorDescriptor_t srcDesc,                                 \
     const cudnnTensorDescriptor_t diffDesc, const cudnnConvolutionDescriptor_t convDesc,         \
     const cudnnFilterDescriptor_t gradDesc, const int requestedAlgoCount,                        \
     int *returnedAlgoCount, cudnnConvolutionBwdFilterAlgoPerf_t *perfResults))                   \
  X(cudnnFindConvolutionBackwardFilterAlgorithmEx, cudnnStatus_t,                                 \
    (cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const void *x,                    \
     const cudnnTensorDescriptor_t dyDesc, const void *y,                                         \
     const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t dwDesc, void *dw, \
     const int requestedAlgoCount, int *returnedAlgoCount,                                        \
     cudnnConvolutionBwdFilterAlgoPerf_t *perfResults, void *workSpace,                           \
     size_t workSpaceSizeInBytes))                                                                \
  X(cudnnGetConvolutionBackwardFilterWorkspaceSize, cudnnStatus_t,                                \
    (cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,                                   \
     const cudnnTensorDescriptor_t dyDesc, const cudnnConvolutionDescriptor_t convDesc,           \
     const cudnnFilterDescriptor_t gradDesc, cudnnConvolutionBwdFilterAlgo_t algo,                \
     size_t *sizeInBytes))                                                                        \
  X(cudnnConvolutionBackwardFilter, cudnnStatus_t,                                                \
    (cudnnHandle_t handle, const void *alpha, const cudnnTensorDescriptor_t xDesc, const void *x, \
     const cudnnTensorDescriptor_t dyDesc, const void *dy,                                        \
     const cudnnConvolutionDescriptor_t convDesc, cudnnConvolutionBwdFilterAlgo_t algo,           \
     void *workSpace, size_t workSpaceSizeInBytes, const void *beta,                              \
     const cudnnFilterDescriptor_t dwDesc, void *dw))

#define BARACUDA_CUDNN_DECLARE_PFN(name, ret, params) using PFN_##name = ret(*) params;
BARACUDA_CUDNN_FUNCTIONS(BARACUDA_CUDNN_DECLARE_PFN)
#undef BARACUDA_CUDNN_DECLARE_PFN

// Constants, grouped by the C enum they belong to: X(name, value).
// Values are cuDNN 9's; native/abi_check.cc proves each one against <cudnn.h>.
#define BARACUDA_CUDNN_CONSTANTS(X) \
  /* cudnnStatus_t */ \
  X(CUDNN_STATUS_SUCCESS, 0) \
  X(CUDNN_STATUS_NOT_INITIALIZED, 1001) \
  X(CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH, 1002) \
  X(CUDNN_STATUS_SERIALIZATION_VERSION_MISMATCH, 1003) \
  X(CUDNN_STATUS_DEPRECATED, 1004) \
  X(CUDNN_STATUS_LICENSE_ERROR, 1005) \
  X(CUDNN_STATUS_RUNTIME_IN_PROGRESS, 1006) \
  X(CUDNN_STATUS_RUNTIME_FP_OVERFLOW, 1007) \
  X(CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED, 1008) \
  X(CUDNN_STATUS_BAD_PARAM, 2000) \
  X(CUDNN_STATUS_BAD_PARAM_NULL_POINTER, 2002) \
  X(CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER, 2003) \
  X(CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED, 2004) \
  X(CUDNN_STATUS_BAD_PARAM_OUT_OF_BOUND, 2005) \
  X(CUDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT, 2006) \
  X(CUDNN_STATUS_BAD_PARAM_STREAM_MISMATCH, 2007) \
  X(CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH, 2008) \
  X(CUDNN_STATUS_BAD_PARAM_DUPLICATED_ENTRIES, 2009) \
  X(CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE, 2010) \
  X(CUDNN_STATUS_BAD_PARAM_CUDA_GRAPH_MISMATCH, 2011) \
  X(CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE, 2012) \
  X(CUDNN_STATUS_NOT_SUPPORTED, 3000) \
  X(CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN, 3001) \
  X(CUDNN_STATUS_NOT_SUPPORTED_SHAPE, 3002) \
  X(CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE, 3003) \
  X(CUDNN_STATUS_NOT_SUPPORTED_LAYOUT, 3004) \
  X(CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER, 3005) \
  X(CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDART, 3006) \
  X(CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH, 3007) \
  X(CUDNN_STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING, 3008) \
  X(CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE, 3009) \
  X(CUDNN_STATUS_NOT_SUPPORTED_SHARED_MEMORY_INSUFFICIENT, 3010) \
  X(CUDNN_STATUS_NOT_SUPPORTED_PADDING, 3011) \
  X(CUDNN_STATUS_NOT_SUPPORTED_BAD_LAUNCH_PARAM, 3012) \
  X(CUDNN_STATUS_NOT_SUPPORTED_CUDA_GRAPH_NATIVE_API, 3013) \
  X(CUDNN_STATUS_INTERNAL_ERROR, 4000) \
  X(CUDNN_STATUS_INTERNAL_ERROR_COMPILATION_FAILED, 4001) \
  X(CUDNN_STATUS_INTERNAL_ERROR_UNEXPECTED_VALUE, 4002) \
  X(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED, 4003) \
  X(CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED, 4004) \
  X(CUDNN_STATUS_INTERNAL_ERROR_BAD_LAUNCH_PARAM, 4005) \
  X(CUDNN_STATUS_INTERNAL_ERROR_TEXTURE_CREATION_FAILED, 4006) \
  X(CUDNN_STATUS_EXECUTION_FAILED, 5000) \
  X(CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER, 5001) \
  X(CUDNN_STATUS_EXECUTION_FAILED_CUBLAS, 5002) \
  X(CUDNN_STATUS_EXECUTION_FAILED_CUDART, 5003) \
  X(CUDNN_STATUS_EXECUTION_FAILED_CURAND, 5004) \
  X(CUDNN_STATUS_ALLOC_FAILED, 4003) \
  X(CUDNN_STATUS_INVALID_VALUE, 2001) \
  X(CUDNN_STATUS_ARCH_MISMATCH, 3007) \
  X(CUDNN_STATUS_MAPPING_ERROR, 4006) \
  X(CUDNN_STATUS_RUNTIME_PREREQUISITE_MISSING, 3008) \
  X(CUDNN_STATUS_VERSION_MISMATCH, 1002) \
  /* cudnnDataType_t */ \
  X(CUDNN_DATA_FLOAT, 0) \
  X(CUDNN_DATA_DOUBLE, 1) \
  X(CUDNN_DATA_HALF, 2) \
  X(CUDNN_DATA_INT8, 3) \
  X(CUDNN_DATA_INT32, 4) \
  X(CUDNN_DATA_INT8x4, 5) \
  X(CUDNN_DATA_UINT8, 6) \
  X(CUDNN_DATA_UINT8x4, 7) \
  X(CUDNN_DATA_INT8x32, 8) \
  X(CUDNN_DATA_BFLOAT16, 9) \
  X(CUDNN_DATA_INT64, 10) \
  X(CUDNN_DATA_BOOLEAN, 11) \
  X(CUDNN_DATA_FP8_E4M3, 12) \
  X(CUDNN_DATA_FP8_E5M2, 13) \
  X(CUDNN_DATA_FAST_FLOAT_FOR_FP8, 14) \
  /* cudnnTensorFormat_t */ \
  X(CUDNN_TENSOR_NCHW, 0) \
  X(CUDNN_TENSOR_NHWC, 1) \
  X(CUDNN_TENSOR_NCHW_VECT_C, 2) \
  /* cudnnConvolutionMode_t */ \
  X(CUDNN_CONVOLUTION, 0) \
  X(CUDNN_CROSS_CORRELATION, 1) \
  /* cudnnMathType_t */ \
  X(CUDNN_DEFAULT_MATH, 0) \
  X(CUDNN_TENSOR_OP_MATH, 1) \
  X(CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION, 2) \
  X(CUDNN_FMA_MATH, 3) \
  /* cudnnReorderType_t */ \
  X(CUDNN_DEFAULT_REORDER, 0) \
  X(CUDNN_NO_REORDER, 1) \
  /* cudnnDeterminism_t */ \
  X(CUDNN_NON_DETERMINISTIC, 0) \
  X(CUDNN_DETERMINISTIC, 1) \
  /* cudnnConvolutionFwdAlgo_t */ \
  X(CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, 0) \
  X(CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, 1) \
  X(CUDNN_CONVOLUTION_FWD_ALGO_GEMM, 2) \
  X(CUDNN_CONVOLUTION_FWD_ALGO_DIRECT, 3) \
  X(CUDNN_CONVOLUTION_FWD_ALGO_FFT, 4) \
  X(CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING, 5) \
  X(CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD, 6) \
  X(CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED, 7) \
  X(CUDNN_CONVOLUTION_FWD_ALGO_COUNT, 8) \
  /* cudnnConvolutionBwdDataAlgo_t */ \
  X(CUDNN_CONVOLUTION_BWD_DATA_ALGO_0, 0) \
  X(CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, 1) \
  X(CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT, 2) \
  X(CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING, 3) \
  X(CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD, 4) \
  X(CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED, 5) \
  X(CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, 6) \
  /* cudnnConvolutionBwdFilterAlgo_t */ \
  X(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0, 0) \
  X(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, 1) \
  X(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT, 2) \
  X(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3, 3) \
  X(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD, 4) \
  X(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED, 5) \
  X(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING, 6) \
  X(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, 7) \
  /* cudnnActivationMode_t */ \
  X(CUDNN_ACTIVATION_SIGMOID, 0) \
  X(CUDNN_ACTIVATION_RELU, 1) \
  X(CUDNN_ACTIVATION_TANH, 2) \
  X(CUDNN_ACTIVATION_CLIPPED_RELU, 3) \
  X(CUDNN_ACTIVATION_ELU, 4) \
  X(CUDNN_ACTIVATION_IDENTITY, 5) \
  X(CUDNN_ACTIVATION_SWISH, 6) \
  /* cudnnNanPropagation_t */ \
  X(CUDNN_NOT_PROPAGATE_NAN, 0) \
  X(CUDNN_PROPAGATE_NAN, 1) \
  /* libraryPropertyType */ \
  X(MAJOR_VERSION, 0) \
  X(MINOR_VERSION, 1) \
  X(PATCH_LEVEL, 2) \
  /* cudnnBackendDescriptorType_t */ \
  X(CUDNN_BACKEND_POINTWISE_DESCRIPTOR, 0) \
  X(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, 1) \
  X(CUDNN_BACKEND_ENGINE_DESCRIPTOR, 2) \
  X(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, 3) \
  X(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, 4) \
  X(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, 5) \
  X(CUDNN_BACKEND_INTERMEDIATE_INFO_DESCRIPTOR, 6) \
  X(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, 7) \
  X(CUDNN_BACKEND_KNOB_INFO_DESCRIPTOR, 8) \
  X(CUDNN_BACKEND_LAYOUT_INFO_DESCRIPTOR, 9) \
  X(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, 10) \
  X(CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR, 11) \
  X(CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR, 12) \
  X(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, 13) \
  X(CUDNN_BACKEND_OPERATION_GEN_STATS_DESCRIPTOR, 14) \
  X(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, 15) \
  X(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, 16) \
  X(CUDNN_BACKEND_TENSOR_DESCRIPTOR, 17) \
  X(CUDNN_BACKEND_MATMUL_DESCRIPTOR, 18) \
  X(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR, 19) \
  X(CUDNN_BACKEND_OPERATION_BN_FINALIZE_STATISTICS_DESCRIPTOR, 20) \
  X(CUDNN_BACKEND_REDUCTION_DESCRIPTOR, 21) \
  X(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR, 22) \
  X(CUDNN_BACKEND_OPERATION_BN_BWD_WEIGHTS_DESCRIPTOR, 23) \
  X(CUDNN_BACKEND_RESAMPLE_DESCRIPTOR, 24) \
  X(CUDNN_BACKEND_OPERATION_RESAMPLE_FWD_DESCRIPTOR, 25) \
  X(CUDNN_BACKEND_OPERATION_RESAMPLE_BWD_DESCRIPTOR, 26) \
  X(CUDNN_BACKEND_OPERATION_CONCAT_DESCRIPTOR, 27) \
  X(CUDNN_BACKEND_OPERATION_SIGNAL_DESCRIPTOR, 28) \
  X(CUDNN_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR, 29) \
  X(CUDNN_BACKEND_OPERATION_NORM_BACKWARD_DESCRIPTOR, 30) \
  X(CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR, 31) \
  X(CUDNN_BACKEND_RNG_DESCRIPTOR, 32) \
  X(CUDNN_BACKEND_OPERATION_RNG_DESCRIPTOR, 33) \
  X(CUDNN_BACKEND_KERNEL_CACHE_DESCRIPTOR, 34) \
  X(CUDNN_BACKEND_OPERATION_PAGED_CACHE_LOAD_DESCRIPTOR, 35) \
  /* cudnnBackendAttributeName_t */ \
  X(CUDNN_ATTR_POINTWISE_MODE, 0) \
  X(CUDNN_ATTR_POINTWISE_MATH_PREC, 1) \
  X(CUDNN_ATTR_POINTWISE_NAN_PROPAGATION, 2) \
  X(CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP, 3) \
  X(CUDNN_ATTR_POINTWISE_RELU_UPPER_CLIP, 4) \
  X(CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP_SLOPE, 5) \
  X(CUDNN_ATTR_POINTWISE_ELU_ALPHA, 6) \
  X(CUDNN_ATTR_POINTWISE_SOFTPLUS_BETA, 7) \
  X(CUDNN_ATTR_POINTWISE_SWISH_BETA, 8) \
  X(CUDNN_ATTR_POINTWISE_AXIS, 9) \
  X(CUDNN_ATTR_CONVOLUTION_COMP_TYPE, 100) \
  X(CUDNN_ATTR_CONVOLUTION_CONV_MODE, 101) \
  X(CUDNN_ATTR_CONVOLUTION_DILATIONS, 102) \
  X(CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, 103) \
  X(CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, 104) \
  X(CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, 105) \
  X(CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, 106) \
  X(CUDNN_ATTR_ENGINEHEUR_MODE, 200) \
  X(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, 201) \
  X(CUDNN_ATTR_ENGINEHEUR_RESULTS, 202) \
  X(CUDNN_ATTR_ENGINEHEUR_SM_COUNT_TARGET, 203) \
  X(CUDNN_ATTR_ENGINECFG_ENGINE, 300) \
  X(CUDNN_ATTR_ENGINECFG_INTERMEDIATE_INFO, 301) \
  X(CUDNN_ATTR_ENGINECFG_KNOB_CHOICES, 302) \
  X(CUDNN_ATTR_ENGINECFG_WORKSPACE_SIZE, 303) \
  X(CUDNN_ATTR_ENGINECFG_SHARED_MEMORY_USED, 304) \
  X(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, 400) \
  X(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, 401) \
  X(CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, 402) \
  X(CUDNN_ATTR_EXECUTION_PLAN_COMPUTED_INTERMEDIATE_UIDS, 403) \
  X(CUDNN_ATTR_EXECUTION_PLAN_RUN_ONLY_INTERMEDIATE_UIDS, 404) \
  X(CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, 405) \
  X(CUDNN_ATTR_EXECUTION_PLAN_KERNEL_CACHE, 406) \
  X(CUDNN_ATTR_INTERMEDIATE_INFO_UNIQUE_ID, 500) \
  X(CUDNN_ATTR_INTERMEDIATE_INFO_SIZE, 501) \
  X(CUDNN_ATTR_INTERMEDIATE_INFO_DEPENDENT_DATA_UIDS, 502) \
  X(CUDNN_ATTR_INTERMEDIATE_INFO_DEPENDENT_ATTRIBUTES, 503) \
  X(CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, 600) \
  X(CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, 601) \
  X(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, 700) \
  X(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, 701) \
  X(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, 702) \
  X(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, 703) \
  X(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, 704) \
  X(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, 705) \
  X(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA, 706) \
  X(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA, 707) \
  X(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC, 708) \
  X(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W, 709) \
  X(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, 710) \
  X(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY, 711) \
  X(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA, 712) \
  X(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA, 713) \
  X(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC, 714) \
  X(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW, 715) \
  X(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X, 716) \
  X(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY, 717) \
  X(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, 750) \
  X(CUDNN_ATTR_OPERATION_POINTWISE_XDESC, 751) \
  X(CUDNN_ATTR_OPERATION_POINTWISE_BDESC, 752) \
  X(CUDNN_ATTR_OPERATION_POINTWISE_YDESC, 753) \
  X(CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1, 754) \
  X(CUDNN_ATTR_OPERATION_POINTWISE_ALPHA2, 755) \
  X(CUDNN_ATTR_OPERATION_POINTWISE_DXDESC, 756) \
  X(CUDNN_ATTR_OPERATION_POINTWISE_DYDESC, 757) \
  X(CUDNN_ATTR_OPERATION_POINTWISE_TDESC, 758) \
  X(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, 800) \
  X(CUDNN_ATTR_OPERATIONGRAPH_OPS, 801) \
  X(CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT, 802) \
  X(CUDNN_ATTR_OPERATIONGRAPH_IS_DYNAMIC_SHAPE_ENABLED, 803) \
  X(CUDNN_ATTR_OPERATIONGRAPH_IS_SAME_TOPOLOGY, 804) \
  X(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, 900) \
  X(CUDNN_ATTR_TENSOR_DATA_TYPE, 901) \
  X(CUDNN_ATTR_TENSOR_DIMENSIONS, 902) \
  X(CUDNN_ATTR_TENSOR_STRIDES, 903) \
  X(CUDNN_ATTR_TENSOR_VECTOR_COUNT, 904) \
  X(CUDNN_ATTR_TENSOR_VECTORIZED_DIMENSION, 905) \
  X(CUDNN_ATTR_TENSOR_UNIQUE_ID, 906) \
  X(CUDNN_ATTR_TENSOR_IS_VIRTUAL, 907) \
  X(CUDNN_ATTR_TENSOR_IS_BY_VALUE, 908) \
  X(CUDNN_ATTR_TENSOR_REORDERING_MODE, 909) \
  X(CUDNN_ATTR_TENSOR_RAGGED_OFFSET_DESC, 913) \
  X(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, 1000) \
  X(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, 1001) \
  X(CUDNN_ATTR_VARIANT_PACK_INTERMEDIATES, 1002) \
  X(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, 1003) \
  X(CUDNN_ATTR_LAYOUT_INFO_TENSOR_UID, 1100) \
  X(CUDNN_ATTR_LAYOUT_INFO_TYPES, 1101) \
  X(CUDNN_ATTR_KNOB_INFO_TYPE, 1200) \
  X(CUDNN_ATTR_KNOB_INFO_MAXIMUM_VALUE, 1201) \
  X(CUDNN_ATTR_KNOB_INFO_MINIMUM_VALUE, 1202) \
  X(CUDNN_ATTR_KNOB_INFO_STRIDE, 1203) \
  X(CUDNN_ATTR_ENGINE_OPERATION_GRAPH, 1300) \
  X(CUDNN_ATTR_ENGINE_GLOBAL_INDEX, 1301) \
  X(CUDNN_ATTR_ENGINE_KNOB_INFO, 1302) \
  X(CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, 1303) \
  X(CUDNN_ATTR_ENGINE_LAYOUT_INFO, 1304) \
  X(CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE, 1305) \
  X(CUDNN_ATTR_ENGINE_SM_COUNT_TARGET, 1306) \
  X(CUDNN_ATTR_KERNEL_CACHE_OPERATION_GRAPH, 2400) \
  X(CUDNN_ATTR_KERNEL_CACHE_IS_ENGINECFG_KERNEL_CACHED, 2401) \
  /* cudnnBackendAttributeType_t */ \
  X(CUDNN_TYPE_HANDLE, 0) \
  X(CUDNN_TYPE_DATA_TYPE, 1) \
  X(CUDNN_TYPE_BOOLEAN, 2) \
  X(CUDNN_TYPE_INT64, 3) \
  X(CUDNN_TYPE_FLOAT, 4) \
  X(CUDNN_TYPE_DOUBLE, 5) \
  X(CUDNN_TYPE_VOID_PTR, 6) \
  X(CUDNN_TYPE_CONVOLUTION_MODE, 7) \
  X(CUDNN_TYPE_HEUR_MODE, 8) \
  X(CUDNN_TYPE_KNOB_TYPE, 9) \
  X(CUDNN_TYPE_NAN_PROPOGATION, 10) \
  X(CUDNN_TYPE_NUMERICAL_NOTE, 11) \
  X(CUDNN_TYPE_LAYOUT_TYPE, 12) \
  X(CUDNN_TYPE_ATTRIB_NAME, 13) \
  X(CUDNN_TYPE_POINTWISE_MODE, 14) \
  X(CUDNN_TYPE_BACKEND_DESCRIPTOR, 15) \
  X(CUDNN_TYPE_GENSTATS_MODE, 16) \
  X(CUDNN_TYPE_BN_FINALIZE_STATS_MODE, 17) \
  X(CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, 18) \
  X(CUDNN_TYPE_BEHAVIOR_NOTE, 19) \
  X(CUDNN_TYPE_TENSOR_REORDERING_MODE, 20) \
  X(CUDNN_TYPE_RESAMPLE_MODE, 21) \
  X(CUDNN_TYPE_PADDING_MODE, 22) \
  X(CUDNN_TYPE_INT32, 23) \
  X(CUDNN_TYPE_CHAR, 24) \
  X(CUDNN_TYPE_SIGNAL_MODE, 25) \
  X(CUDNN_TYPE_FRACTION, 26) \
  X(CUDNN_TYPE_NORM_MODE, 27) \
  X(CUDNN_TYPE_NORM_FWD_PHASE, 28) \
  X(CUDNN_TYPE_RNG_DISTRIBUTION, 29) \
  /* cudnnBackendHeurMode_t */ \
  X(CUDNN_HEUR_MODE_INSTANT, 0) \
  X(CUDNN_HEUR_MODE_B, 1) \
  X(CUDNN_HEUR_MODE_FALLBACK, 2) \
  X(CUDNN_HEUR_MODE_A, 3) \
  /* cudnnBackendNumericalNote_t */ \
  X(CUDNN_NUMERICAL_NOTE_TENSOR_CORE, 0) \
  X(CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS, 1) \
  X(CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION, 2) \
  X(CUDNN_NUMERICAL_NOTE_FFT, 3) \
  X(CUDNN_NUMERICAL_NOTE_NONDETERMINISTIC, 4) \
  X(CUDNN_NUMERICAL_NOTE_WINOGRAD, 5) \
  X(CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_4x4, 6) \
  X(CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_6x6, 7) \
  X(CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_13x13, 8) \
  X(CUDNN_NUMERICAL_NOTE_STRICT_NAN_PROP, 9) \
  /* cudnnBackendBehaviorNote_t */ \
  X(CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION, 0) \
  X(CUDNN_BEHAVIOR_NOTE_REQUIRES_FILTER_INT8x32_REORDER, 1) \
  X(CUDNN_BEHAVIOR_NOTE_REQUIRES_BIAS_INT8x32_REORDER, 2) \
  X(CUDNN_BEHAVIOR_NOTE_SUPPORTS_CUDA_GRAPH_NATIVE_API, 3) \
  /* cudnnBackendKnobType_t */ \
  X(CUDNN_KNOB_TYPE_SPLIT_K, 0) \
  X(CUDNN_KNOB_TYPE_SWIZZLE, 1) \
  X(CUDNN_KNOB_TYPE_TILE_SIZE, 2) \
  X(CUDNN_KNOB_TYPE_USE_TEX, 3) \
  X(CUDNN_KNOB_TYPE_EDGE, 4) \
  X(CUDNN_KNOB_TYPE_KBLOCK, 5) \
  X(CUDNN_KNOB_TYPE_LDGA, 6) \
  X(CUDNN_KNOB_TYPE_LDGB, 7) \
  X(CUDNN_KNOB_TYPE_CHUNK_K, 8) \
  X(CUDNN_KNOB_TYPE_SPLIT_H, 9) \
  X(CUDNN_KNOB_TYPE_WINO_TILE, 10) \
  X(CUDNN_KNOB_TYPE_MULTIPLY, 11) \
  X(CUDNN_KNOB_TYPE_SPLIT_K_BUF, 12) \
  X(CUDNN_KNOB_TYPE_TILEK, 13) \
  X(CUDNN_KNOB_TYPE_STAGES, 14) \
  X(CUDNN_KNOB_TYPE_REDUCTION_MODE, 15) \
  X(CUDNN_KNOB_TYPE_CTA_SPLIT_K_MODE, 16) \
  X(CUDNN_KNOB_TYPE_SPLIT_K_SLC, 17) \
  X(CUDNN_KNOB_TYPE_IDX_MODE, 18) \
  X(CUDNN_KNOB_TYPE_SLICED, 19) \
  X(CUDNN_KNOB_TYPE_SPLIT_RS, 20) \
  X(CUDNN_KNOB_TYPE_SINGLEBUFFER, 21) \
  X(CUDNN_KNOB_TYPE_LDGC, 22) \
  X(CUDNN_KNOB_TYPE_SPECFILT, 23) \
  X(CUDNN_KNOB_TYPE_KERNEL_CFG, 24) \
  X(CUDNN_KNOB_TYPE_WORKSPACE, 25) \
  X(CUDNN_KNOB_TYPE_TILE_CGA, 26) \
  X(CUDNN_KNOB_TYPE_TILE_CGA_M, 27) \
  X(CUDNN_KNOB_TYPE_TILE_CGA_N, 28) \
  X(CUDNN_KNOB_TYPE_BLOCK_SIZE, 29) \
  X(CUDNN_KNOB_TYPE_OCCUPANCY, 30) \
  X(CUDNN_KNOB_TYPE_ARRAY_SIZE_PER_THREAD, 31) \
  X(CUDNN_KNOB_TYPE_NUM_C_PER_BLOCK, 32) \
  X(CUDNN_KNOB_TYPE_SPLIT_COLS, 33) \
  X(CUDNN_KNOB_TYPE_TILE_ROWS, 34) \
  X(CUDNN_KNOB_TYPE_TILE_COLS, 35) \
  X(CUDNN_KNOB_TYPE_LOAD_SIZE, 36) \
  /* cudnnBackendLayoutType_t */ \
  X(CUDNN_LAYOUT_TYPE_PREFERRED_NCHW, 0) \
  X(CUDNN_LAYOUT_TYPE_PREFERRED_NHWC, 1) \
  X(CUDNN_LAYOUT_TYPE_PREFERRED_PAD4CK, 2) \
  X(CUDNN_LAYOUT_TYPE_PREFERRED_PAD8CK, 3) \
  /* cudnnBackendTensorReordering_t */ \
  X(CUDNN_TENSOR_REORDERING_NONE, 0) \
  X(CUDNN_TENSOR_REORDERING_INT8x32, 1) \
  X(CUDNN_TENSOR_REORDERING_F16x16, 2) \
  /* cudnnPointwiseMode_t */ \
  X(CUDNN_POINTWISE_ADD, 0) \
  X(CUDNN_POINTWISE_ADD_SQUARE, 5) \
  X(CUDNN_POINTWISE_DIV, 6) \
  X(CUDNN_POINTWISE_MAX, 3) \
  X(CUDNN_POINTWISE_MIN, 2) \
  X(CUDNN_POINTWISE_MOD, 7) \
  X(CUDNN_POINTWISE_MUL, 1) \
  X(CUDNN_POINTWISE_POW, 8) \
  X(CUDNN_POINTWISE_SUB, 9) \
  X(CUDNN_POINTWISE_ABS, 10) \
  X(CUDNN_POINTWISE_CEIL, 11) \
  X(CUDNN_POINTWISE_COS, 12) \
  X(CUDNN_POINTWISE_EXP, 13) \
  X(CUDNN_POINTWISE_FLOOR, 14) \
  X(CUDNN_POINTWISE_LOG, 15) \
  X(CUDNN_POINTWISE_NEG, 16) \
  X(CUDNN_POINTWISE_RSQRT, 17) \
  X(CUDNN_POINTWISE_SIN, 18) \
  X(CUDNN_POINTWISE_SQRT, 4) \
  X(CUDNN_POINTWISE_TAN, 19) \
  X(CUDNN_POINTWISE_ERF, 20) \
  X(CUDNN_POINTWISE_IDENTITY, 21) \
  X(CUDNN_POINTWISE_RECIPROCAL, 22) \
  X(CUDNN_POINTWISE_ATAN2, 23) \
  X(CUDNN_POINTWISE_RELU_FWD, 100) \
  X(CUDNN_POINTWISE_TANH_FWD, 101) \
  X(CUDNN_POINTWISE_SIGMOID_FWD, 102) \
  X(CUDNN_POINTWISE_ELU_FWD, 103) \
  X(CUDNN_POINTWISE_GELU_FWD, 104) \
  X(CUDNN_POINTWISE_SOFTPLUS_FWD, 105) \
  X(CUDNN_POINTWISE_SWISH_FWD, 106) \
  X(CUDNN_POINTWISE_GELU_APPROX_TANH_FWD, 107) \
  X(CUDNN_POINTWISE_RELU_BWD, 200) \
  X(CUDNN_POINTWISE_TANH_BWD, 201) \
  X(CUDNN_POINTWISE_SIGMOID_BWD, 202) \
  X(CUDNN_POINTWISE_ELU_BWD, 203) \
  X(CUDNN_POINTWISE_GELU_BWD, 204) \
  X(CUDNN_POINTWISE_SOFTPLUS_BWD, 205) \
  X(CUDNN_POINTWISE_SWISH_BWD, 206) \
  X(CUDNN_POINTWISE_GELU_APPROX_TANH_BWD, 207) \
  X(CUDNN_POINTWISE_CMP_EQ, 300) \
  X(CUDNN_POINTWISE_CMP_NEQ, 301) \
  X(CUDNN_POINTWISE_CMP_GT, 302) \
  X(CUDNN_POINTWISE_CMP_GE, 303) \
  X(CUDNN_POINTWISE_CMP_LT, 304) \
  X(CUDNN_POINTWISE_CMP_LE, 305) \
  X(CUDNN_POINTWISE_LOGICAL_AND, 400) \
  X(CUDNN_POINTWISE_LOGICAL_OR, 401) \
  X(CUDNN_POINTWISE_LOGICAL_NOT, 402) \
  X(CUDNN_POINTWISE_GEN_INDEX, 501) \
  X(CUDNN_POINTWISE_BINARY_SELECT, 601)

// Added in cuDNN 9.7: checked only against a header at least that new.
#define BARACUDA_CUDNN_CONSTANTS_SINCE_90700(X) \
  X(CUDNN_DATA_FP8_E8M0, 15) \
  X(CUDNN_DATA_FP4_E2M1, 16)

// Added in cuDNN 9.11: checked only against a header at least that new.
#define BARACUDA_CUDNN_CONSTANTS_SINCE_91100(X) \
  X(CUDNN_DATA_INT4, 17) \
  X(CUDNN_DATA_UINT4, 18) \
  X(CUDNN_DATA_UINT32, 19)

// Added in cuDNN 9.14: checked only against a header at least that new.
#define BARACUDA_CUDNN_CONSTANTS_SINCE_91400(X) \
  X(CUDNN_DATA_COMPLEX_FP32, 20) \
  X(CUDNN_DATA_COMPLEX_FP64, 21)

// Added in cuDNN 9.18: checked only against a header at least that new.
#define BARACUDA_CUDNN_CONSTANTS_SINCE_91800(X) \
  X(CUDNN_STATUS_NOT_SUPPORTED_INVALID_DYNAMIC_SHAPE, 3014)

#define BARACUDA_CUDNN_CONSTANTS_VERSIONED(X) \
  BARACUDA_CUDNN_CONSTANTS_SINCE_90700(X) \
  BARACUDA_CUDNN_CONSTANTS_SINCE_91100(X) \
  BARACUDA_CUDNN_CONSTANTS_SINCE_91400(X) \
  BARACUDA_CUDNN_CONSTANTS_SINCE_91800(X)

/// `CUDNN_DIM_MAX`, a macro in <cudnn.h>: the maximum tensor rank.
constexpr int kCudnnDimMax = 8;

// The constants as C++ values, for the addon's own use (namespace k keeps them apart from the
// header's enumerators in the ABI check).
namespace k {
#define BARACUDA_CUDNN_DEFINE_CONSTANT(name, value) constexpr int name = value;
BARACUDA_CUDNN_CONSTANTS(BARACUDA_CUDNN_DEFINE_CONSTANT)
BARACUDA_CUDNN_CONSTANTS_VERSIONED(BARACUDA_CUDNN_DEFINE_CONSTANT)
#undef BARACUDA_CUDNN_DEFINE_CONSTANT
}  // namespace k

}  // namespace baracuda::cudnn
