// RUN: xsplit-opt %s -p 'split-k{factor=77 strategy=grouped},materialize-early' | filecheck %s --check-prefix=EARLY
// RUN: xsplit-opt %s -p 'split-k{factor=77 strategy=grouped},materialize-early,materialize-late' | filecheck %s --check-prefix=BOTH
// RUN: xsplit-opt %s -p 'split-k{factor=77 strategy=grouped},materialize-late' | filecheck %s --check-prefix=BOTH

// Early: the grouped op becomes the graph-level loop over its 76 groups of
// 666, each filling its own slot and running the named matmul on its static
// chunk; the last group (618) runs beside the loop and is written into slot
// 76; the rock.reduce merge stays for materialize-late.
// EARLY-LABEL: func.func @matmul_static
// EARLY-NOT:     linalg_ext.split_grouped_gemm
// EARLY:         %[[E:.*]] = tensor.empty() : tensor<77x123x456xf32>
// EARLY:         %[[L:.*]] = scf.forall (%[[G:.*]]) in (76) shared_outs(%[[O:.*]] = %[[E]]) -> (tensor<77x123x456xf32>) {
// EARLY:           %[[SLOT:.*]] = tensor.extract_slice %[[O]][%[[G]], 0, 0] [1, 123, 456] [1, 1, 1] : tensor<77x123x456xf32> to tensor<123x456xf32>
// EARLY:           %[[ACC:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[SLOT]] : tensor<123x456xf32>)
// EARLY-NEXT:      %[[PART:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<123x666xf32>, tensor<666x456xf32>) outs(%[[ACC]] : tensor<123x456xf32>)
// EARLY:             tensor.parallel_insert_slice %[[PART]] into %[[O]][%[[G]], 0, 0] [1, 123, 456] [1, 1, 1]
// EARLY:         } {mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}
// EARLY:         %[[T:.*]] = linalg.matmul {xsplit.split_part = "tail"} ins(%{{.*}}, %{{.*}} : tensor<123x618xf32>, tensor<618x456xf32>)
// EARLY:         %[[ALL:.*]] = tensor.insert_slice %[[T]] into %[[L]][76, 0, 0] [1, 123, 456] [1, 1, 1] {xsplit.split_part = "tail"}
// EARLY:         rock.reduce sum %[[ALL]]

// Late, after either order: the loop in flow.dispatch.workgroups, rock.reduce
// lowered to a linalg.reduce over the group axis.
// BOTH-LABEL: func.func @matmul_static
// BOTH-NOT:     rock.reduce
// BOTH:         flow.dispatch.workgroups(%{{.*}}, %{{.*}}) : (tensor<123x51234xf32>, tensor<51234x456xf32>) -> tensor<77x123x456xf32> =
// BOTH:           scf.forall (%{{.*}}) in (76)
// BOTH:             linalg.fill
// BOTH-NEXT:        linalg.matmul
// BOTH:           } {mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}
// BOTH:         tensor.insert_slice %{{.*}} into %{{.*}}[76, 0, 0] [1, 123, 456] [1, 1, 1] {xsplit.split_part = "tail"}
// BOTH:         linalg.reduce ins(%{{.*}}:tensor<77x123x456xf32>) outs(%{{.*}}:tensor<123x456xf32>) dimensions = [0]
// BOTH-NOT:     linalg_ext.split_grouped_gemm
func.func @matmul_static(%arg0: tensor<123x51234xf32>, %arg1: tensor<51234x456xf32>, %arg2: tensor<123x456xf32>) -> tensor<123x456xf32> {
  %0 = linalg.matmul ins(%arg0, %arg1 : tensor<123x51234xf32>, tensor<51234x456xf32>) outs(%arg2 : tensor<123x456xf32>) -> tensor<123x456xf32>
  func.return %0 : tensor<123x456xf32>
}
